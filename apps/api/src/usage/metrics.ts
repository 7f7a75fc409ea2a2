import { countsOf, NO_USAGE_KEY } from "@llmgw/domain";
import { Counter, type Registry } from "prom-client";
import type { RequestOutcome } from "../gateway/meter";

/** SPEC §12.4: `llmgw_usage_tokens_total{model,token,owner,kind}`, counted as the store counts. */
export class UsageMetrics {
  readonly #tokens: Counter<"model" | "token" | "owner" | "kind">;

  constructor(registry: Registry) {
    this.#tokens = new Counter({
      name: "llmgw_usage_tokens_total",
      help: "Tokens the engines reported, by model, client token ('-' none), owner and kind (prompt, cached, completion)",
      labelNames: ["model", "token", "owner", "kind"],
      registers: [registry],
    });
  }

  add(outcome: RequestOutcome): void {
    const counts = countsOf(outcome);
    if (counts === null || counts.requests === 0) return;
    const labels = {
      model: outcome.model || NO_USAGE_KEY,
      token: outcome.clientToken ?? NO_USAGE_KEY,
      owner: outcome.owner || NO_USAGE_KEY,
    };
    if (counts.promptTokens > 0) this.#tokens.inc({ ...labels, kind: "prompt" }, counts.promptTokens);
    if (counts.cachedTokens > 0) this.#tokens.inc({ ...labels, kind: "cached" }, counts.cachedTokens);
    if (counts.completionTokens > 0)
      this.#tokens.inc({ ...labels, kind: "completion" }, counts.completionTokens);
  }
}
