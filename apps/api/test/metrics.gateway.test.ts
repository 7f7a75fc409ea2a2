import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { GatewayNow, RequestOutcome } from "../src/gateway/meter";
import {
  COLD_START_BUCKETS,
  FIRST_BYTE_SAMPLE,
  LATENCY_BUCKETS,
  PromGatewayMeter,
} from "../src/metrics/gateway";
import { bucketsOf, type Page, parsePage, samplesOf, sampleValue } from "./prometheus";

// The gateway's meter (SPEC §7.7) on a registry of its own: what `/metrics` shows once the gateway
// reports requests and cold starts, with a fake of what the gateway holds now.

type ModelNow = { inFlight: number; queued: number; longestWaitMs: number | null; waking: boolean };

function gatewayNow(models: Record<string, Partial<ModelNow>> = {}, tokens: Record<string, number> = {}) {
  const held: GatewayNow = {
    models: new Map(
      Object.entries(models).map(([name, m]) => [
        name,
        { inFlight: 0, queued: 0, longestWaitMs: null, waking: false, ...m },
      ]),
    ),
    tokens: new Map(Object.entries(tokens)),
  };
  return held;
}

function outcome(overrides: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    model: "tiny",
    token: "alice",
    status: 200,
    queuedMs: 0,
    firstByteMs: 40,
    durationMs: 900,
    promptTokens: 12,
    completionTokens: 30,
    ...overrides,
  };
}

function meterWith(now: () => GatewayNow = () => gatewayNow()) {
  const registry = new Registry();
  const meter = new PromGatewayMeter({ registry, now });
  const scrape = async (): Promise<Page> => parsePage(await registry.metrics());
  return { meter, scrape };
}

describe("the gateway's meter", () => {
  it("shows no gateway requests before the first one ends", async () => {
    const { scrape } = meterWith();

    const page = await scrape();

    expect(page.types.get("llmgw_gateway_requests_total")).toBe("counter");
    expect(samplesOf(page, "llmgw_gateway_requests_total")).toEqual([]);
  });

  it("counts requests by model, token and status", async () => {
    const { meter, scrape } = meterWith();

    meter.finished(outcome());
    meter.finished(outcome());
    meter.finished(outcome({ status: 503, firstByteMs: null, promptTokens: null, completionTokens: null }));
    meter.finished(outcome({ token: "bob" }));
    meter.finished(outcome({ model: "", status: 404, firstByteMs: null }));
    const page = await scrape();

    const requests = (labels: Record<string, string>) =>
      sampleValue(page, "llmgw_gateway_requests_total", labels);
    expect(requests({ model: "tiny", token: "alice", status: "200" })).toBe(2);
    expect(requests({ model: "tiny", token: "alice", status: "503" })).toBe(1);
    expect(requests({ model: "tiny", token: "bob", status: "200" })).toBe(1);
    expect(requests({ model: "", token: "alice", status: "404" })).toBe(1);
  });

  it("sums the tokens the engine's usage reported", async () => {
    const { meter, scrape } = meterWith();

    meter.finished(outcome({ promptTokens: 10, completionTokens: 100 }));
    meter.finished(outcome({ promptTokens: 5, completionTokens: 50 }));
    meter.finished(outcome({ promptTokens: null, completionTokens: null }));
    const page = await scrape();

    const labels = { model: "tiny", token: "alice" };
    expect(sampleValue(page, "llmgw_gateway_prompt_tokens_total", labels)).toBe(15);
    expect(sampleValue(page, "llmgw_gateway_completion_tokens_total", labels)).toBe(150);
  });

  it("puts waits, first bytes and durations in LLM-latency buckets from 5 ms to 120 s", async () => {
    const { meter, scrape } = meterWith();

    meter.finished(outcome({ queuedMs: 0, firstByteMs: 3, durationMs: 80 }));
    meter.finished(outcome({ queuedMs: 45_000, firstByteMs: 46_000, durationMs: 200_000 }));
    meter.finished(outcome({ status: 499, firstByteMs: null, durationMs: 2_000 }));
    const page = await scrape();

    const labels = { model: "tiny", token: "alice" };
    const firstByte = bucketsOf(page, "llmgw_gateway_first_byte_seconds", labels);
    expect([...firstByte.keys()]).toEqual([...LATENCY_BUCKETS.map(String), "+Inf"]);
    expect(firstByte.get("0.005")).toBe(1);
    expect(firstByte.get("30")).toBe(1);
    expect(firstByte.get("60")).toBe(2);
    // A request that never had a first byte is not timed to one.
    expect(sampleValue(page, "llmgw_gateway_first_byte_seconds_count", labels)).toBe(2);
    const duration = bucketsOf(page, "llmgw_gateway_request_duration_seconds", labels);
    expect(duration.get("0.1")).toBe(1);
    expect(duration.get("2.5")).toBe(2);
    expect(duration.get("120")).toBe(2);
    expect(duration.get("+Inf")).toBe(3);
    expect(sampleValue(page, "llmgw_gateway_request_duration_seconds_sum", labels)).toBeCloseTo(202.08);
    const wait = bucketsOf(page, "llmgw_gateway_queue_wait_seconds", labels);
    expect(wait.get("0.005")).toBe(2);
    expect(wait.get("60")).toBe(3);
    expect(wait.get("300")).toBe(3);
  });

  it("times cold starts per model", async () => {
    const { meter, scrape } = meterWith();

    meter.coldStart("tiny", 12_000);
    meter.coldStart("tiny", 95_000);
    const page = await scrape();

    const buckets = bucketsOf(page, "llmgw_gateway_cold_start_seconds", { model: "tiny" });
    expect([...buckets.keys()]).toEqual([...COLD_START_BUCKETS.map(String), "+Inf"]);
    expect(buckets.get("10")).toBe(0);
    expect(buckets.get("20")).toBe(1);
    expect(buckets.get("120")).toBe(2);
    expect(sampleValue(page, "llmgw_gateway_cold_start_seconds_sum", { model: "tiny" })).toBe(107);
  });

  it("reads in flight, queued and waking from the gateway when scraped", async () => {
    let now = gatewayNow(
      { tiny: { inFlight: 3, queued: 2, longestWaitMs: 1500, waking: true }, big: { inFlight: 1 } },
      { alice: 3, bob: 1 },
    );
    const { scrape } = meterWith(() => now);

    const first = await scrape();
    now = gatewayNow({ big: { inFlight: 2 } }, { bob: 2 });
    const second = await scrape();

    expect(sampleValue(first, "llmgw_gateway_in_flight", { model: "tiny" })).toBe(3);
    expect(sampleValue(first, "llmgw_gateway_queued", { model: "tiny" })).toBe(2);
    expect(sampleValue(first, "llmgw_gateway_waiting_seconds", { model: "tiny" })).toBe(1.5);
    expect(sampleValue(first, "llmgw_gateway_waking", { model: "tiny" })).toBe(1);
    expect(sampleValue(first, "llmgw_gateway_in_flight_by_token", { token: "alice" })).toBe(3);
    expect(first.types.get("llmgw_gateway_in_flight")).toBe("gauge");
    // What the gateway no longer holds drops out; the rest moves.
    expect(samplesOf(second, "llmgw_gateway_in_flight").map((s) => [s.labels.model, s.value])).toEqual([
      ["big", 2],
    ]);
    expect(
      samplesOf(second, "llmgw_gateway_in_flight_by_token").map((s) => [s.labels.token, s.value]),
    ).toEqual([["bob", 2]]);
  });

  it("never throws into the request path on figures that make no sense", async () => {
    const { meter, scrape } = meterWith();

    meter.finished(outcome({ durationMs: Number.NaN, firstByteMs: -5, completionTokens: -1 }));
    meter.coldStart("tiny", Number.POSITIVE_INFINITY);
    const page = await scrape();

    const labels = { model: "tiny", token: "alice" };
    expect(sampleValue(page, "llmgw_gateway_requests_total", { ...labels, status: "200" })).toBe(1);
    expect(sampleValue(page, "llmgw_gateway_request_duration_seconds_count", labels)).toBeUndefined();
    expect(sampleValue(page, "llmgw_gateway_first_byte_seconds_sum", labels)).toBe(0);
    expect(sampleValue(page, "llmgw_gateway_completion_tokens_total", labels)).toBe(0);
  });

  it("keeps each model's finished requests for the traffic tick, then starts afresh", () => {
    const { meter } = meterWith();

    meter.finished(outcome({ firstByteMs: 40, completionTokens: 30 }));
    meter.finished(outcome({ firstByteMs: null, completionTokens: 10 }));
    meter.finished(outcome({ model: "", status: 404 }));
    const taken = meter.takeSecond();

    expect([...taken]).toEqual([
      ["tiny", { requests: 2, firstBytes: 1, firstByteMs: [40], completionTokens: 40 }],
    ]);
    expect(meter.takeSecond().size).toBe(0);
  });

  it("holds a bounded sample of first-byte times between ticks, however many requests end", () => {
    const { meter } = meterWith();

    for (let i = 0; i < 5 * FIRST_BYTE_SAMPLE; i++)
      meter.finished(outcome({ firstByteMs: i % 2 === 0 ? 10 : 20 }));
    const tiny = meter.takeSecond().get("tiny");

    expect(tiny?.requests).toBe(5 * FIRST_BYTE_SAMPLE);
    expect(tiny?.firstBytes).toBe(5 * FIRST_BYTE_SAMPLE);
    expect(tiny?.firstByteMs).toHaveLength(FIRST_BYTE_SAMPLE);
    expect(new Set(tiny?.firstByteMs)).toEqual(new Set([10, 20]));
  });
});
