import type { BenchResult, StoredBench } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { modelSummary } from "../world";
import { commit } from "./commit";
import { modelNamed, noSuchModel } from "./modelNamed";

/**
 * Stores a bench as its model's last (SPEC §5: the result, when and by whom, audited), whether the
 * server measured it or `llmgw ctl bench` did. A measurement, not an edit: the model's version
 * (its ETag) stays, and the card's `model.changed` carries the bench to every screen.
 */
export async function storeBench({
  deps,
  input,
  by,
}: {
  deps: Deps;
  input: { name: string; result: BenchResult };
  by: string;
}): Promise<StoredBench> {
  const { name, result } = input;
  if (result.model !== name) {
    throw new AppError({
      code: "bad_request",
      message: `the bench is of ${result.model}, not ${name}`,
      fields: {
        model: `must be ${name}, the model in the path`,
      },
    });
  }
  const snap = await deps.world.snapshot();
  modelNamed(snap, name);
  const at = deps.now().toISOString();
  const bench: StoredBench = { ...result, at, by };
  return commit(deps, async (tx) => {
    const stored = await tx.models.setBench(name, bench);
    if (!stored) throw noSuchModel(name);
    await tx.audit.append([
      { at, by, action: "bench", target: name, field: null, before: null, after: auditedFigures(bench) },
    ]);
    return { result: bench, events: [{ type: "model.changed", data: modelSummary(snap, stored) }] };
  });
}

/** What the audit keeps of a bench: the figures per concurrency and the memory, not each replica. */
function auditedFigures(bench: StoredBench) {
  return {
    runs: bench.runs.map((r) => ({
      concurrency: r.concurrency,
      requests: r.requests,
      errors: r.errors,
      tokensPerSecond: r.tokensPerSecond,
      ttftMsP50: r.ttftMs.p50,
    })),
    measuredMemoryGB: bench.measuredMemoryGB,
  };
}
