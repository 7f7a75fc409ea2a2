import { contract } from "@llmgw/contract";
import type { ModelSummary, RolloutView } from "@llmgw/domain";
import { ActionError } from "../../../components/ActionError";
import { useMayCall } from "../../../lib/session";
import { useRolloutModel } from "../api/rollout-model";

/**
 * The share of requests each revision took during the rollout, in whole percent; before any, a
 * canary's set share; null otherwise.
 */
function shares(r: RolloutView): { old: number; new: number } | null {
  const total = r.requests.old.sent + r.requests.new.sent;
  if (total === 0) {
    return r.state === "canary" && r.canaryPercent !== null
      ? { old: 100 - r.canaryPercent, new: r.canaryPercent }
      : null;
  }
  const fresh = Math.round((r.requests.new.sent / total) * 100);
  return { old: 100 - fresh, new: fresh };
}

const STATE_TEXT: Record<RolloutView["state"], string> = {
  rolling: "rolling out",
  canary: "canary held",
  done: "done",
  rolledBack: "rolled back",
};

/**
 * SPEC §11.5: while a rollout runs, both revisions with their replicas and share of traffic, and
 * Promote (a held canary) and Abort; after it, how it ended.
 */
export function RolloutPanel({ model }: { model: ModelSummary }) {
  const mayAct = useMayCall(contract.models.rollout);
  const act = useRolloutModel();
  const r = model.rollout;
  if (!r) return null;
  const running = r.state === "rolling" || r.state === "canary";
  const share = shares(r);
  const revisions = [
    { label: "old", revision: r.from, replicas: r.replicas.old, counts: r.requests.old, share: share?.old },
    { label: "new", revision: r.to, replicas: r.replicas.new, counts: r.requests.new, share: share?.new },
  ];
  return (
    <section className="rollout" aria-label={`Rollout of ${model.name}`} data-testid="model-rollout">
      <p data-testid="rollout-state">
        Rollout revision {r.from} → {r.to}: <strong>{STATE_TEXT[r.state]}</strong>
        {r.state === "canary" && r.canaryPercent !== null ? ` (${r.canaryPercent} % of requests)` : ""}
        {r.reason ? ` — ${r.reason}` : ""}
      </p>
      {running && (
        <table className="rollout-revisions">
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">Replicas</th>
              <th scope="col">Share of traffic</th>
              <th scope="col">Requests (failed)</th>
            </tr>
          </thead>
          <tbody>
            {revisions.map((row) => (
              <tr key={row.label} data-testid={`rollout-${row.label}`}>
                <th scope="row">
                  {row.revision} ({row.label})
                </th>
                <td>{row.replicas}</td>
                <td>{row.share === undefined ? "—" : `${row.share} %`}</td>
                <td>
                  {row.counts.sent} ({row.counts.failed})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {running && mayAct && (
        <div className="actions">
          {r.state === "canary" && (
            <button
              type="button"
              className="primary"
              disabled={act.isPending}
              onClick={() => act.mutate({ name: model.name, action: "promote" })}
              data-testid="rollout-promote"
            >
              Promote revision {r.to}
            </button>
          )}
          <button
            type="button"
            disabled={act.isPending}
            onClick={() => act.mutate({ name: model.name, action: "abort" })}
            data-testid="rollout-abort"
          >
            Abort
          </button>
          <ActionError error={act.isError ? act.error : null} />
        </div>
      )}
    </section>
  );
}
