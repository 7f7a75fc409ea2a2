import type { Model } from "@llmgw/domain";
import type { Deps } from "../deps";

/**
 * Records that an on-demand model is wanted (SPEC §2.6): `POST /models/:name/wake` and a request
 * through the gateway for a model with no ready replica (§7.2). Stored, so any process may take
 * the wake (the one that schedules hears of it by NOTIFY); the scheduler wants one replica until
 * the model has been idle for its timeout. Recording it again later moves the idle clock on.
 */
export async function wake({ deps, model, at }: { deps: Deps; model: Model; at: Date }): Promise<void> {
  await recordWake(deps, model.name, at.getTime());
  deps.runtime.nudge();
}

/**
 * The wake itself: stored (later ones win), and this process's picture of wakes moved on. The
 * gateway records it again while a model serves (gateway/idle.ts), which needs no scheduler run.
 */
export async function recordWake(deps: Deps, model: string, ms: number): Promise<void> {
  await deps.store.wakes.wake(model, ms);
  if (ms > (deps.wakes.get(model) ?? Number.NEGATIVE_INFINITY)) deps.wakes.set(model, ms);
}
