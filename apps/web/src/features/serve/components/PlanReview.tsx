import type { ServePlan } from "@llmgw/domain";
import { gb } from "../../../lib/units";
import { RollOutVersion } from "./RollOutVersion";

/** The plan for the chosen version: what the form starts from, and why. */
export function PlanReview({ plan }: { plan: ServePlan }) {
  return (
    <div data-testid="serve-plan">
      <dl className="plan">
        <div>
          <dt>Engine</dt>
          <dd data-testid="plan-engine">{plan.engine}</dd>
        </div>
        <div>
          <dt>Profile</dt>
          <dd data-testid="plan-profile">{plan.profile}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd className="mono wrap" data-testid="plan-source">
            {plan.source}
            {plan.files > 1 && ` (${plan.files} files)`}
          </dd>
        </div>
        <div>
          <dt>Memory per replica</dt>
          <dd>
            <span data-testid="plan-memory">{gb(plan.minMemoryGB)}</span>
            <span className="muted" data-testid="plan-basis">
              {" "}
              — {plan.memoryBasis}
            </span>
          </dd>
        </div>
        <div>
          <dt>Cores per replica</dt>
          <dd data-testid="plan-cores">
            {plan.cpuCores === 0 ? "no node reports its cores" : plan.cpuCores}
          </dd>
        </div>
        <div>
          <dt>Context pool</dt>
          <dd data-testid="plan-ctx-pool">{plan.ctxPool.toLocaleString()} tokens</dd>
        </div>
      </dl>
      {plan.warning && (
        <p className="notice notice-warn" data-testid="plan-warning">
          {plan.warning}
        </p>
      )}
      {plan.already && !plan.refusal && (
        <p className="notice" data-testid="plan-already">
          A model called {plan.model} is already in the catalogue: roll this version out to it, or give this
          one another name.
        </p>
      )}
      <RollOutVersion plan={plan} />
    </div>
  );
}
