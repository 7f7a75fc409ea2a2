import type { ModelInput } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { gb } from "../../../lib/units";

/** The catalogue entry exactly as it will be sent. */
export function ConfirmStep({ input }: { input: ModelInput }) {
  const profile = input.profiles[0];
  const selector = Object.entries(profile?.nodeSelector ?? {});
  const scaling = input.scaling;
  const runs =
    scaling.min > 0
      ? `always, ${counted(scaling.min, "replica")}`
      : scaling.max > 0
        ? `on demand, up to ${scaling.max}`
        : "stopped";
  return (
    <div data-testid="serve-summary">
      <h2 className="step-title">Add {input.name} to the catalogue?</h2>
      <dl className="plan">
        <div>
          <dt>Name</dt>
          <dd data-testid="summary-name">{input.name}</dd>
        </div>
        {input.aliases && input.aliases.length > 0 && (
          <div>
            <dt>Aliases</dt>
            <dd>{input.aliases.join(", ")}</dd>
          </div>
        )}
        <div>
          <dt>Source</dt>
          <dd className="mono wrap">{input.source}</dd>
        </div>
        <div>
          <dt>Class</dt>
          <dd data-testid="summary-class">{input.class ?? "standard"}</dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd data-testid="summary-owner">{input.owner || "unowned"}</dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd data-testid="summary-runs">{runs}</dd>
        </div>
        <div>
          <dt>Each replica</dt>
          <dd data-testid="summary-need">
            {profile
              ? `${profile.engine} (${profile.name}), ${gb(profile.minMemoryGB ?? 0)}, ${counted(profile.cpuCores ?? 0, "core")}${
                  profile.gpus ? `, ${profile.gpus} GPU` : ""
                }`
              : "—"}
          </dd>
        </div>
        <div>
          <dt>Context</dt>
          <dd>
            {input.contextLength.toLocaleString()} tokens per request
            {input.maxOutput ? `, up to ${input.maxOutput.toLocaleString()} out` : ""}
            {profile?.args && profile.args.length > 0 && (
              <span className="mono"> · {profile.args.join(" ")}</span>
            )}
          </dd>
        </div>
        {selector.length > 0 && (
          <div>
            <dt>Only on nodes with</dt>
            <dd className="mono">{selector.map(([k, v]) => `${k}=${v}`).join(", ")}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}
