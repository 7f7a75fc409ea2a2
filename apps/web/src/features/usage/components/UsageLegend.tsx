import type { Stacked } from "../series";
import { colorOf } from "./colors";

/** The chart's keys with their colours and the period's figure: what the canvas says, in words. */
export function UsageLegend({
  stacked,
  figure,
  label,
}: {
  stacked: Stacked;
  figure: (n: number) => string;
  label: string;
}) {
  return (
    <ul className="usage-legend" aria-label={label} data-testid={`usage-legend-${label}`}>
      {stacked.keys.map((key, k) => (
        <li key={key} data-testid="usage-series">
          <span className="swatch" style={{ background: colorOf(k) }} aria-hidden="true" />
          <span className="mono name">{key}</span>{" "}
          <span className="muted">{figure(stacked.totals[k] ?? 0)}</span>
        </li>
      ))}
    </ul>
  );
}
