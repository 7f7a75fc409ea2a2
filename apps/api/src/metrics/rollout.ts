import { Gauge, type Registry } from "prom-client";
import type { Deps } from "../deps";
import { REVISION_COUNTS } from "../rollout/traffic";

/** `llmgw_rollout_state`'s value per state: 0 none has run, then as a rollout goes. */
const STATE = { rolling: 1, canary: 2, done: 3, rolledBack: 4 } as const;

/** Each model whose last rollout is on record, with it. */
async function rolloutsOf(deps: Deps) {
  return (await deps.world.snapshot()).models.flatMap((m) =>
    m.rollout ? [{ model: m.name, rollout: m.rollout }] : [],
  );
}

/**
 * What `/metrics` says about rollouts (SPEC §11.5): each model's last rollout's state, and the
 * requests this process sent to each revision during it, failed ones apart. Read when scraped.
 */
export function registerRolloutSeries(registry: Registry, deps: Deps): void {
  new Gauge({
    name: "llmgw_rollout_state",
    help: "A model's last rollout: 1 rolling, 2 canary held, 3 done, 4 rolled back.",
    labelNames: ["model", "from", "to"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { model, rollout } of await rolloutsOf(deps))
        this.set({ model, from: rollout.from, to: rollout.to }, STATE[rollout.state]);
    },
  });
  new Gauge({
    name: "llmgw_rollout_requests",
    help: "Requests this process sent to each revision of a model during its last rollout (outcome sent or failed).",
    labelNames: ["model", "revision", "outcome"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { model, rollout } of await rolloutsOf(deps)) {
        const counts = REVISION_COUNTS.of(model, rollout.from, rollout.to);
        for (const [revision, c] of [
          [rollout.from, counts.old],
          [rollout.to, counts.new],
        ] as const) {
          this.set({ model, revision, outcome: "sent" }, c.sent);
          this.set({ model, revision, outcome: "failed" }, c.failed);
        }
      }
    },
  });
}
