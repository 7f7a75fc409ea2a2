import { type EphemeralEvent, modelTrafficSchema } from "@llmgw/domain";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventHub } from "../src/events/eventHub";
import type { GatewayNow, RequestOutcome } from "../src/gateway/meter";
import { PromGatewayMeter } from "../src/metrics/gateway";
import { startTraffic, trafficOf } from "../src/metrics/traffic";
import { modelInput, useApi } from "./harness";
import { dataOf, EventStream } from "./sse";

// `model.traffic` (SPEC §7.7): every second, one event per model with traffic, to this process's
// event streams, never stored.

const api = useApi();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.useRealTimers();
});

type ModelNow = { inFlight: number; queued: number; longestWaitMs: number | null; waking: boolean };
const held = (models: Record<string, Partial<ModelNow>> = {}): GatewayNow => ({
  models: new Map(
    Object.entries(models).map(([name, m]) => [
      name,
      { inFlight: 0, queued: 0, longestWaitMs: null, waking: false, ...m },
    ]),
  ),
  tokens: new Map(),
});

const outcome = (overrides: Partial<RequestOutcome> = {}): RequestOutcome => ({
  model: "tiny",
  token: "local",
  status: 200,
  queuedMs: 0,
  firstByteMs: 50,
  durationMs: 400,
  promptTokens: 10,
  completionTokens: 20,
  ...overrides,
});

const meterOf = (now: () => GatewayNow) => new PromGatewayMeter({ registry: new Registry(), now });

describe("trafficOf", () => {
  it("gives each model with traffic its rates, median first byte and what the gateway holds", () => {
    const meter = meterOf(() => held());
    for (const firstByteMs of [30, 90, 50, null]) meter.finished(outcome({ firstByteMs }));

    const events = trafficOf(
      meter.takeSecond(),
      held({ tiny: { inFlight: 2, queued: 1, longestWaitMs: 2500, waking: true } }),
      2,
    );

    expect(events).toEqual([
      {
        model: "tiny",
        requestsPerSecond: 2,
        inFlight: 2,
        queued: 1,
        waitingSeconds: 2.5,
        waking: true,
        firstByteP50Ms: 50,
        tokensPerSecond: 40,
      },
    ]);
    for (const event of events) expect(modelTrafficSchema.parse(event)).toEqual(event);
  });

  it("counts a model with requests in flight or queued and nothing finished", () => {
    const events = trafficOf(new Map(), held({ busy: { inFlight: 1 }, waiting: { queued: 3 } }), 1);

    expect(events.map((e) => [e.model, e.requestsPerSecond, e.firstByteP50Ms, e.waitingSeconds])).toEqual([
      ["busy", 0, null, null],
      ["waiting", 0, null, null],
    ]);
  });

  it("gives no event for a model without traffic, even one the gateway knows", () => {
    expect(trafficOf(new Map(), held({ idle: {}, stale: { longestWaitMs: 10, waking: true } }), 1)).toEqual(
      [],
    );
  });
});

describe("startTraffic", () => {
  it("sends the events every interval, unstored, and stops when asked", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    const hub = new EventHub();
    const sent: EphemeralEvent[] = [];
    hub.subscribeEphemeral((event) => sent.push(event));
    const meter = meterOf(() => held());
    const stop = startTraffic({ hub, now: () => held(), meter });

    meter.finished(outcome());
    vi.advanceTimersByTime(1_000);
    vi.advanceTimersByTime(1_000);
    meter.finished(outcome());
    stop();
    vi.advanceTimersByTime(5_000);

    expect(sent.map((e) => [e.type, e.type === "model.traffic" ? e.data.requestsPerSecond : null])).toEqual([
      ["model.traffic", 1],
    ]);
  });

  it("reaches an app's event stream with no id, and is not in the events table", async () => {
    const model = await (await api.client.models.$post({ json: modelInput() })).json();
    const now = () => held({ [model.name]: { inFlight: 1 }, idle: {} });
    const meter = meterOf(now);
    const stream = await EventStream.of(await api.app.request("/api/v1/events"));
    cleanups.push(() => stream.close());
    cleanups.push(startTraffic({ hub: api.deps.hub, now, meter, intervalMs: 10 }));

    meter.finished(outcome({ model: model.name }));
    const traffic = (await stream.until((e) => e.event === "model.traffic")).at(-1);
    const more = await stream.take(2);

    expect(traffic?.id).toBeNull();
    expect(modelTrafficSchema.parse(traffic && dataOf(traffic))).toMatchObject({
      model: model.name,
      inFlight: 1,
    });
    // The idle model the gateway knows of gets none.
    expect(more.map((e) => [e.event, dataOf(e).model])).toEqual([
      ["model.traffic", model.name],
      ["model.traffic", model.name],
    ]);
    const stored = await api.deps.store.events.since(0, 1000);
    expect(stored.length).toBeGreaterThan(0);
    // Typed as change events, so checked as the rows' strings: none is the ephemeral type.
    expect(stored.map((e): string => e.type)).not.toContain("model.traffic");
  });
});
