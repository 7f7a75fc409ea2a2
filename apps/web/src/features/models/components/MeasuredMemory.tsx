import type { ModelSummary } from "@llmgw/domain";
import { gb } from "../../../lib/units";

/** How far measured use may stray from the estimate before the card says so. */
const TOLERANCE = 0.25;

/**
 * What the replicas really hold, beside what a replica asks for. The estimate comes from the
 * weights; the measurement from the agents. When they disagree by more than a quarter the
 * estimate is worth revisiting: too low risks the OOM killer, too high wastes a node.
 */
export function measuredMemory(
  model: ModelSummary,
): { measured: number; estimate: number; off: boolean } | null {
  const readings = model.replicas.map((r) => r.measuredMemoryGB).filter((m): m is number => m !== null);
  if (readings.length === 0) return null;
  const measured = Math.max(...readings);
  const estimate = model.profiles[0]?.minMemoryGB ?? 0;
  const off = estimate === 0 || Math.abs(measured - estimate) / estimate > TOLERANCE;
  return { measured, estimate, off };
}

/** Beside the memory field: what the replicas measure. */
export function MeasuredMemory({ model }: { model: ModelSummary }) {
  const reading = measuredMemory(model);
  return (
    <span data-testid="measured-memory">
      {reading ? `replicas measure ${gb(reading.measured)}` : "not measured yet"}
    </span>
  );
}

/** Under the fields, when the measurement and the estimate disagree by more than a quarter. */
export function MemoryHint({ model }: { model: ModelSummary }) {
  const reading = measuredMemory(model);
  if (!reading?.off) return null;
  const { measured, estimate } = reading;
  let text: string;
  if (estimate === 0)
    text = `Replicas use ${gb(measured)} but ask for none; set memory so placement can count it.`;
  else if (measured > estimate)
    text = `Replicas use ${gb(measured)}, ${Math.round((measured / estimate - 1) * 100)}% more than the ${gb(estimate)} asked for; consider raising memory.`;
  else
    text = `Replicas use ${gb(measured)}, ${Math.round((1 - measured / estimate) * 100)}% less than the ${gb(estimate)} asked for; it could ask for less.`;
  return (
    <p className="hint-warn" data-testid="memory-hint">
      {text}
    </p>
  );
}
