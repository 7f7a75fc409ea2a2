import type { ModelSummary } from "@llmgw/domain";
import { useCapacity } from "../../capacity/api/get-capacity";
import { useModelHeadroom } from "../../capacity/api/get-headroom";
import { placingOf } from "../placing";

/** The card's live "placing 1 replica…" line, until the replicas run or the reason arrives. */
export function Placing({ model }: { model: ModelSummary }) {
  // Whether the scheduler runs is the server's setting, one query shared by every card.
  const scheduler = useCapacity().data?.scheduler;
  // Its counts as they are now: a model's own view is as of its last event (features/models/live.ts).
  const headroom = useModelHeadroom(model);
  const placing = placingOf({ ...model, headroom }, { scheduler });
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
