import { percent } from "../lib/units";

export type BarSegment = { key: string; label: string; value: number; tone: string };

type Props = {
  /** What the bar measures, for its accessible name: "Memory". */
  label: string;
  segments: BarSegment[];
  total: number;
  format: (value: number) => string;
  testId?: string;
};

/**
 * One resource of a whole (memory of the fleet, cores of a node), split by who holds it. The rest
 * of the track is free. Screen readers get the numbers as the bar's name; sighted readers get them
 * in the legend beside it.
 */
export function StackedBar({ label, segments, total, format, testId }: Props) {
  const used = segments.reduce((sum, s) => sum + s.value, 0);
  const free = Math.max(0, total - used);
  const parts = segments.filter((s) => s.value > 0).map((s) => `${s.label} ${format(s.value)}`);
  const name = `${label}: ${parts.length ? parts.join(", ") : "nothing held"}; ${format(free)} free of ${format(total)}`;
  return (
    <div className="stack" role="img" aria-label={name} data-testid={testId}>
      {segments
        .filter((s) => s.value > 0)
        .map((s) => (
          <span
            key={s.key}
            className="stack-part"
            style={{ width: `${percent(s.value, Math.max(total, used))}%`, background: s.tone }}
            title={`${s.label}: ${format(s.value)}`}
          />
        ))}
    </div>
  );
}

export function Legend({ items }: { items: { key: string; label: string; tone: string }[] }) {
  return (
    <ul className="legend" aria-label="Colours">
      {items.map((item) => (
        <li key={item.key}>
          <span className="swatch" style={{ background: item.tone }} aria-hidden="true" />
          {item.label}
        </li>
      ))}
    </ul>
  );
}
