import { contract } from "@llmgw/contract";
import type { ServePlan } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { ActionError } from "../../../components/ActionError";
import { answer, api, segment } from "../../../lib/api";
import { Link } from "../../../lib/router";
import { useMayCall } from "../../../lib/session";

/**
 * SPEC §11.1: a mirrored version of a model already in the catalogue is rolled out to it (the
 * same PATCH of its source as the card's), read first so the PATCH names the version it changes.
 */
async function rollOut(plan: ServePlan) {
  const param = { name: segment(plan.model) };
  const model = await answer(api.models[":name"].$get({ param }));
  return answer(
    api.models[":name"].$patch(
      { param, json: { source: plan.source } },
      { headers: { "If-Match": `"${model.version}"` } },
    ),
  );
}

export function RollOutVersion({ plan }: { plan: ServePlan }) {
  const mayPatch = useMayCall(contract.models.patch);
  const roll = useMutation({ mutationFn: rollOut });
  if (!plan.already || plan.refusal || !mayPatch) return null;
  const started = roll.data?.rollout;
  return (
    <div className="actions" data-testid="rollout-version">
      <button
        type="button"
        disabled={roll.isPending || roll.isSuccess}
        onClick={() => roll.mutate(plan)}
        data-testid="rollout-version-start"
      >
        {roll.isPending ? "Starting…" : `Roll out this version to ${plan.model}`}
      </button>
      <span role="status" className="saved" data-testid="rollout-version-started">
        {started
          ? `Rolling out revision ${started.from} → ${started.to}`
          : roll.isSuccess
            ? `${plan.model} already runs this version`
            : ""}
      </span>
      {roll.isSuccess && (
        <Link to={`/models?model=${encodeURIComponent(plan.model)}`} data-testid="rollout-version-card">
          Follow it on the card
        </Link>
      )}
      <ActionError error={roll.isError ? roll.error : null} />
    </div>
  );
}
