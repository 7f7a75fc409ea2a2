import type { ModelSummary } from "@llmgw/domain";
import { placingOf } from "../placing";

/** The card's live "placing 1 replica…" line, until the replicas run or the reason arrives. */
export function Placing({ model }: { model: ModelSummary }) {
  const placing = placingOf(model);
  if (!placing) return null;
  return (
    <p
      className={placing.why ? "notice notice-warn" : "notice"}
      role="status"
      data-testid="model-placing"
      data-why={placing.why || undefined}
    >
      {placing.text}
    </p>
  );
}
