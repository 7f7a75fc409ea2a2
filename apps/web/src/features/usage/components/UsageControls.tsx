import { USAGE_KEYS, type UsageKey } from "@llmgw/domain";
import { keyFrom, PERIODS, type Period, periodFrom, periodOf } from "../period";

type Props = {
  by: UsageKey;
  period: Period;
  onBy: (by: UsageKey) => void;
  onPeriod: (period: Period) => void;
};

const KEY_WORDS: Record<UsageKey, string> = { model: "model", token: "client token", owner: "owner" };

/** The key and the period: each change goes into the page's address (the route sets it). */
export function UsageControls({ by, period, onBy, onPeriod }: Props) {
  return (
    <search aria-label="Choose what usage shows">
      <div className="filters">
        <Choice
          id="usage-by"
          label="By"
          value={by}
          options={USAGE_KEYS}
          words={(k) => KEY_WORDS[k]}
          onPick={(v) => onBy(keyFrom(v))}
        />
        <Choice
          id="usage-period"
          label="Period"
          value={period}
          options={PERIODS}
          words={(p) => periodOf(p).label}
          onPick={(v) => onPeriod(periodFrom(v))}
        />
      </div>
    </search>
  );
}

/** A labelled select of `options`; what is picked is read back by the caller's own parser. */
function Choice<T extends string>(props: {
  id: string;
  label: string;
  value: T;
  options: readonly T[];
  words: (option: T) => string;
  onPick: (value: string) => void;
}) {
  const { id, label, value, options, words, onPick } = props;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} data-testid={id} value={value} onChange={(e) => onPick(e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {words(o)}
          </option>
        ))}
      </select>
    </div>
  );
}
