import { type ModelSummary, memoryReading } from "@llmgw/domain";
import { gb } from "../../../lib/units";

/** Beside the memory field: what the replicas measure. */
export function MeasuredMemory({ model }: { model: ModelSummary }) {
  const reading = memoryReading(model);
  return (
    <span data-testid="measured-memory">
      {reading ? `replicas measure ${gb(reading.measured)}` : "not measured yet"}
    </span>
  );
}

/**
 * Under the fields, when the measurement and the estimate disagree by a lot (the domain's
 * `memoryReading`, the same verdict that marks the model as needing attention): too low risks the
 * OOM killer, too high wastes a node.
 */
export function MemoryHint({ model }: { model: ModelSummary }) {
  const reading = memoryReading(model);
  if (!reading || reading.verdict === "close") return null;
  const { measured, estimate } = reading;
  let text: string;
  if (reading.verdict === "unasked")
    text = `Replicas use ${gb(measured)} but ask for none; set memory so placement can count it.`;
  else if (reading.verdict === "over")
    text = `Replicas use ${gb(measured)}, ${Math.round((measured / estimate - 1) * 100)}% more than the ${gb(estimate)} asked for; consider raising memory.`;
  else
    text = `Replicas use ${gb(measured)}, ${Math.round((1 - measured / estimate) * 100)}% less than the ${gb(estimate)} asked for; it could ask for less.`;
  return (
    <p className="hint-warn" data-testid="memory-hint">
      {text}
    </p>
  );
}
