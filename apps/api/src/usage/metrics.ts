import { countsOf, NO_USAGE_KEY } from "@llmgw/domain";
import type { Registry } from "prom-client";
import type { RequestOutcome } from "../gateway/meter";
import { Keyed, summedCounter } from "../metrics/series";

/** One (model, token, owner)'s tokens since the process started. */
type Tokens = {
  labels: { model: string; token: string; owner: string };
  prompt: number;
  cached: number;
  completion: number;
};

/**
 * SPEC §12.4: `llmgw_usage_tokens_total{model,token,owner,kind}`, counted as the store counts,
 * summed per label set here and handed to the registry when scraped (metrics/series.ts). A kind
 * is printed once some of it was counted.
 */
export class UsageMetrics {
  readonly #tokens = new Keyed<"model" | "token" | "owner", Tokens>((labels) => ({
    labels,
    prompt: 0,
    cached: 0,
    completion: 0,
  }));

  constructor(registry: Registry) {
    summedCounter(
      registry,
      {
        name: "llmgw_usage_tokens_total",
        help: "Tokens the engines reported, by model, client token ('-' none), owner and kind (prompt, cached, completion)",
        labelNames: ["model", "token", "owner", "kind"],
      },
      this.#tokens,
      (t) =>
        (
          [
            ["prompt", t.prompt],
            ["cached", t.cached],
            ["completion", t.completion],
          ] as const
        )
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => [{ kind }, n] as const),
    );
  }

  add(outcome: RequestOutcome): void {
    const counts = countsOf(outcome);
    if (counts === null || counts.requests === 0) return;
    const model = outcome.model || NO_USAGE_KEY;
    const token = outcome.clientToken ?? NO_USAGE_KEY;
    const owner = outcome.owner || NO_USAGE_KEY;
    const t = this.#tokens.at(`${model}\u0000${token}\u0000${owner}`, () => ({ model, token, owner }));
    t.prompt += counts.promptTokens;
    t.cached += counts.cachedTokens;
    t.completion += counts.completionTokens;
  }
}
