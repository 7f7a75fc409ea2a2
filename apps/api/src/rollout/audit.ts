import type { ChangeEvent, RolloutView } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";

/**
 * The audit entry of a rollout's change of state (SPEC §11.5: action `rollout`, by who started
 * it, or `rollout` for a rollback): the state it reached, with its revisions and reason.
 */
export function rolloutAudit(model: string, rollout: RolloutView, by: string, version?: number) {
  return {
    at: rollout.at,
    by,
    action: "rollout",
    target: model,
    field: "state",
    before: null,
    after: {
      from: rollout.from,
      to: rollout.to,
      state: rollout.state,
      canaryPercent: rollout.canaryPercent,
      reason: rollout.reason,
    },
    ...(version !== undefined ? { version } : {}),
  };
}

/**
 * A rollout's state, told: its audit entry written in `tx` and the `model.rollout` event to send
 * with the change. Every path that moves a rollout (a PATCH, promote, abort, a rollback) tells it so.
 */
export async function tellRollout(
  tx: Pick<StoreTx, "audit">,
  model: string,
  rollout: RolloutView,
  by: string,
  version?: number,
): Promise<ChangeEvent> {
  await tx.audit.append([rolloutAudit(model, rollout, by, version)]);
  return { type: "model.rollout", data: { model, rollout } };
}
