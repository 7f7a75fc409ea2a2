import { judgeRollout, rollBack, rolloutActive } from "@llmgw/domain";
import type { Deps } from "../deps";
import type { Snapshot } from "../world";
import { changeRollout } from "./change";
import { errorRatioOver, REVISION_COUNTS, rolloutRequests } from "./traffic";

/**
 * Asks for a scheduler run as soon as a rollout's new revision fails more than it may (SPEC §11.4:
 * judged as each request ends), not at the loop's next turn. Returns the unsubscribe.
 */
export function watchErrorRatio(deps: Deps, nudge: () => void): () => void {
  return REVISION_COUNTS.onCount((model) => {
    if (errorRatioOver(model, deps.config.rollout.maxErrorRatio)) nudge();
  });
}

/**
 * Moves each running rollout on (SPEC §11.4): done once no old replica is left, or rolled back
 * (by `rollout`) with the reason in numbers. Run by the scheduling process before it plans, so
 * the plan follows the outcome, and by a heartbeat that reports a new replica failed (an agent
 * stops reporting it at its next beat, often before that run). Applied only to the rollout it
 * judged, so two processes judging at once change it once. True when any model changed.
 */
export async function advanceRollouts(deps: Deps, snap: Snapshot): Promise<boolean> {
  let changed = false;
  const now = deps.now().getTime();
  for (const model of snap.models) {
    const rollout = model.rollout;
    if (!rolloutActive(rollout)) continue;
    const verdict = judgeRollout({
      model,
      replicas: snap.replicasByModel.get(model.name) ?? [],
      requests: rolloutRequests(model.name, rollout.from, rollout.to),
      now,
      settings: deps.config.rollout,
    });
    if (!verdict) continue;
    const at = deps.now().toISOString();
    const by = verdict.state === "done" ? rollout.by : "rollout";
    const view = await changeRollout(deps, model.name, by, (stored) => {
      // Judged on the picture; applied only to the rollout it judged.
      if (stored.rollout?.to !== rollout.to || !rolloutActive(stored.rollout)) return null;
      if (verdict.state === "done") {
        return { ...stored, rollout: { ...stored.rollout, state: "done", reason: null, at } };
      }
      return rollBack(stored, verdict.reason, at);
    });
    if (view) {
      changed = true;
      deps.log.info(
        { model: model.name, rollout: view.rollout?.state },
        view.rollout?.reason ?? "rollout done",
      );
    }
  }
  return changed;
}
