import type { ModelSummary } from "@llmgw/domain";
import { holdText, quotaCapText, rangeText, wantedText } from "../../../lib/scale-words";

/**
 * An autoscaled model's replicas against its min–max (SPEC §9.5): how many run, what traffic
 * wants and why, when the window may let it come down, and the quota when it stops it short.
 */
export function AutoscaleLine({ model }: { model: ModelSummary }) {
  const view = model.autoscale;
  if (view === null) return null;
  const running = model.replicas.filter((r) => r.state === "ready").length;
  const hold = holdText(view);
  const quota = quotaCapText(view, model.owner);
  return (
    <p className="autoscale-line" data-testid="model-autoscale">
      <span className="strong" data-testid="autoscale-running">
        {running}
      </span>{" "}
      of <span data-testid="autoscale-range">{rangeText(model.scaling)}</span> replicas ·{" "}
      <span data-testid="autoscale-wanted">{wantedText(view)}</span>
      {hold && (
        <span className="muted" data-testid="autoscale-hold">
          {" · "}
          {hold}
        </span>
      )}
      {quota && (
        <span className="hint-warn" data-testid="autoscale-quota">
          {" · "}
          {quota}
        </span>
      )}
    </p>
  );
}
