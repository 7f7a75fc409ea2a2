import type { ModelSummary } from "./schemas";

/**
 * How far above the estimate a replica's measured memory may be before it is worth saying: SPEC §6
 * hints when they disagree "by a lot", and an engine's few percent over its weights (a measured
 * 12.3 GB on a 12 GB estimate) is the estimate working, not a warning. Above it the replica may not
 * fit where the scheduler thinks it does, so the model needs attention too.
 */
const MEASURED_OVER_ESTIMATE = 0.1;

/** How far below the estimate before the card suggests asking for less (a wasted node, no risk). */
const MEASURED_UNDER_ESTIMATE = 0.25;

/**
 * What the replicas measure against what one asks for: `over` and `under` the estimate by more
 * than the margins above, `unasked` when the model asks for no memory at all, else `close`.
 * The card's hint and the model's attention read this one verdict.
 */
export type MemoryReading = {
  measured: number;
  estimate: number;
  verdict: "over" | "under" | "unasked" | "close";
};

export function memoryReading(
  model: Pick<ModelSummary, "replicas" | "headroom"> & Partial<Pick<ModelSummary, "profiles">>,
): MemoryReading | null {
  // The estimate is the default profile's (headroom's need): another profile's replicas measure
  // against a different ask, so only the default one's readings count (SPEC §2.6 "Profiles").
  const first = model.profiles?.[0]?.name;
  const readings = model.replicas
    .filter((r) => first === undefined || model.profiles?.length === 1 || r.profile === first)
    .map((r) => r.measuredMemoryGB)
    .filter((m): m is number => m !== null);
  if (readings.length === 0) return null;
  const measured = Math.max(...readings);
  const estimate = model.headroom.need.memoryGB;
  let verdict: MemoryReading["verdict"] = "close";
  if (estimate === 0) verdict = measured > 0 ? "unasked" : "close";
  else if (measured > estimate * (1 + MEASURED_OVER_ESTIMATE)) verdict = "over";
  else if (measured < estimate * (1 - MEASURED_UNDER_ESTIMATE)) verdict = "under";
  return { measured, estimate, verdict };
}
