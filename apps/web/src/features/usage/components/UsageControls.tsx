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
        <div className="field">
          <label htmlFor="usage-by">By</label>
          <select
            id="usage-by"
            data-testid="usage-by"
            value={by}
            onChange={(e) => onBy(keyFrom(e.target.value))}
          >
            {USAGE_KEYS.map((k) => (
              <option key={k} value={k}>
                {KEY_WORDS[k]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="usage-period">Period</label>
          <select
            id="usage-period"
            data-testid="usage-period"
            value={period}
            onChange={(e) => onPeriod(periodFrom(e.target.value))}
          >
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                {periodOf(p).label}
              </option>
            ))}
          </select>
        </div>
      </div>
    </search>
  );
}
