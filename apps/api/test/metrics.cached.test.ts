import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { RequestOutcome } from "../src/gateway/meter";
import { PromGatewayMeter } from "../src/metrics/gateway";
import { trafficOf } from "../src/metrics/traffic";

// SPEC §7.1a: cached prompt tokens on /metrics, and the cache hit ratio in `model.traffic`.

const outcome = (promptTokens: number, cachedTokens?: number): RequestOutcome => ({
  model: "tiny",
  token: "local",
  status: 200,
  queuedMs: 0,
  firstByteMs: 10,
  durationMs: 20,
  promptTokens,
  completionTokens: 5,
  ...(cachedTokens === undefined ? {} : { cachedTokens }),
});
const idle = { models: new Map(), tokens: new Map() };

describe("cached prompt tokens in the meter", () => {
  it("counts them beside the prompt tokens, and gives the second's hit ratio", async () => {
    const registry = new Registry();
    const meter = new PromGatewayMeter({ registry, now: () => idle });
    meter.finished(outcome(1000, 900));
    meter.finished(outcome(1000, 500));
    // An engine that said nothing of its cache leaves the ratio alone.
    meter.finished(outcome(4000));

    const page = await registry.metrics();
    expect(page).toMatch(/llmgw_gateway_prompt_tokens_cached_total\{model="tiny",token="local"\} 1400/);
    expect(page).toMatch(/llmgw_gateway_prompt_tokens_total\{model="tiny",token="local"\} 6000/);
    const [traffic] = trafficOf(meter.takeSecond(), idle, 1);
    expect(traffic?.cachedPromptRatio).toBe(0.7);
    expect(traffic?.promptTokensPerSecond).toBe(2000);
  });

  it("gives no ratio in a second whose engines reported no cache", () => {
    const meter = new PromGatewayMeter({ registry: new Registry(), now: () => idle });
    meter.finished(outcome(1000));
    const [traffic] = trafficOf(meter.takeSecond(), idle, 1);
    expect(traffic && "cachedPromptRatio" in traffic).toBe(false);
  });
});
