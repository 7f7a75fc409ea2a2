import type { RolloutView } from "@llmgw/domain";

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
