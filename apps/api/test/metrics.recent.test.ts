import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TrafficHistory, trafficHistorySchema } from "@llmgw/contract";
import { makeTraffic } from "@llmgw/domain/testing";
import { silentLogger } from "@llmgw/log";
import { StandInEngine } from "@llmgw/simulation";
import OpenAI from "openai";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../src/config";
import { EventHub } from "../src/events/eventHub";
import { IDLE_GATEWAY, PromGatewayMeter } from "../src/metrics/gateway";
import { RecentTraffic, TRAFFIC_HISTORY_SECONDS } from "../src/metrics/recentTraffic";
import { startTraffic } from "../src/metrics/traffic";
import { type RunningServer, startServer } from "../src/server";
import { modelInput } from "./harness";

// `GET /models/:name/traffic` (SPEC §7.7): the server keeps each model's last 10 minutes of
// `model.traffic`, so a page opened after the traffic draws it.

const traffic = (model: string, requestsPerSecond: number) => makeTraffic({ model, requestsPerSecond });

const withoutModel = ({ model: _, ...figures }: ReturnType<typeof makeTraffic>) => figures;

describe("RecentTraffic", () => {
  it("knows nothing before its first tick, and every second from it on", () => {
    const recent = new RecentTraffic();
    expect(recent.of("tiny", 1_000)).toEqual({ model: "tiny", now: 1_000, since: null, seconds: [] });

    recent.record(1_000, []);
    recent.record(1_001, [traffic("tiny", 3), traffic("other", 1)]);
    expect(recent.of("tiny", 1_002)).toEqual({
      model: "tiny",
      now: 1_002,
      since: 1_000,
      seconds: [{ ...withoutModel(traffic("tiny", 3)), at: 1_001 }],
    });
  });

  it("keeps 10 minutes per model, one entry a second, and forgets a model quiet that long", () => {
    const recent = new RecentTraffic();
    const start = 5_000;
    for (let at = start; at < start + 2 * TRAFFIC_HISTORY_SECONDS; at++) {
      recent.record(at, [traffic("busy", at - start)]);
      // A second tick in the same second (a late timer) replaces that second's figures.
      if (at % 7 === 0) recent.record(at, [traffic("busy", at - start)]);
      if (at === start) recent.record(at, [traffic("once", 1)]);
    }
    const now = start + 2 * TRAFFIC_HISTORY_SECONDS - 1;
    const busy = recent.of("busy", now);
    expect(busy.since).toBe(now - TRAFFIC_HISTORY_SECONDS + 1);
    expect(busy.seconds).toHaveLength(TRAFFIC_HISTORY_SECONDS);
    expect(busy.seconds.map((s) => s.at)).toEqual(
      Array.from({ length: TRAFFIC_HISTORY_SECONDS }, (_, i) => now - TRAFFIC_HISTORY_SECONDS + 1 + i),
    );
    expect(recent.of("once", now).seconds).toEqual([]);
    expect(recent.size).toBe(1);
  });
});

describe("startTraffic's share", () => {
  it("hands each tick with traffic to the other processes, one write at a time", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance", "Date"] });
    try {
      const meter = new PromGatewayMeter({ registry: new Registry(), now: () => IDLE_GATEWAY });
      const finished = () =>
        meter.finished({
          model: "tiny",
          token: "local",
          status: 200,
          queuedMs: 0,
          firstByteMs: 50,
          durationMs: 100,
          promptTokens: 1,
          completionTokens: 2,
        });
      const written: { at: number; models: string[] }[] = [];
      let release = () => {};
      const share = vi.fn(async (at: number, events: readonly { model: string }[]) => {
        written.push({ at, models: events.map((e) => e.model) });
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      const stop = startTraffic({ hub: new EventHub(), now: () => IDLE_GATEWAY, meter, share });

      vi.advanceTimersByTime(1_000);
      expect(share).not.toHaveBeenCalled();
      finished();
      vi.advanceTimersByTime(1_000);
      expect(written).toEqual([{ at: Math.floor(Date.now() / 1000), models: ["tiny"] }]);
      // The first write still runs: the next tick's is not written behind it.
      finished();
      vi.advanceTimersByTime(1_000);
      expect(share).toHaveBeenCalledTimes(1);
      // Once it is written, the next tick with traffic is.
      release();
      await new Promise((resolve) => setImmediate(resolve));
      finished();
      vi.advanceTimersByTime(1_000);
      expect(share).toHaveBeenCalledTimes(2);
      stop();
      release();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("GET /api/v1/models/:name/traffic as llmgw serve wires it", () => {
  let server: RunningServer;
  let engine: StandInEngine;
  let root = "";

  const get = (path: string) => fetch(`${server.url}${path}`);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "llmgw-recent-"));
    // Without the scheduler, the replica the agent reports is the model's, where it is reported.
    const config = loadConfig({ dataDir: root, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
    server = await startServer(config, { log: silentLogger() });
    engine = await StandInEngine.start({ tokensPerSecond: 1000, replyTokens: 4 });
    for (const name of ["served", "quiet"]) {
      const res = await fetch(`${server.url}/api/v1/models`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(modelInput({ name, scaling: { min: 1, max: 1 } })),
      });
      expect(res.status).toBe(201);
    }
    const beat = await fetch(`${server.url}/api/v1/agents/heartbeat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        node: { name: "recent-box", memoryGB: 64, cpuCount: 16 },
        replicas: [{ id: "recent-1", model: "served", state: "ready", endpoint: engine.url }],
      }),
    });
    expect(beat.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await engine?.close();
    await server?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("answers the seconds a model served, after the requests and with no stream open", async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (let i = 0; i < 4; i++) {
      await client.chat.completions.create({ model: "served", messages: [{ role: "user", content: "hi" }] });
    }
    let history: TrafficHistory | null = null;
    const until = Date.now() + 5_000;
    while (Date.now() < until) {
      const res = await get("/api/v1/models/served/traffic");
      expect(res.status).toBe(200);
      history = trafficHistorySchema.parse(await res.json());
      if (history.seconds.some((s) => s.requestsPerSecond > 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(history?.model).toBe("served");
    expect(history?.since).not.toBeNull();
    const seconds = history?.seconds ?? [];
    expect(seconds.some((s) => s.requestsPerSecond > 0)).toBe(true);
    expect(seconds.some((s) => s.tokensPerSecond > 0)).toBe(true);
    for (const s of seconds) {
      expect(s.at).toBeGreaterThanOrEqual(history?.since ?? Number.POSITIVE_INFINITY);
      expect(s.at).toBeLessThanOrEqual(history?.now ?? 0);
    }
  });

  it("answers a model without traffic with no seconds, but the seconds it knows", async () => {
    const res = await get("/api/v1/models/quiet/traffic");
    expect(res.status).toBe(200);
    const history = trafficHistorySchema.parse(await res.json());
    expect(history.seconds).toEqual([]);
    expect(history.since).not.toBeNull();
    expect(history.since ?? 0).toBeLessThanOrEqual(history.now);
  });

  it("refuses a model the catalogue does not have (404)", async () => {
    const res = await get("/api/v1/models/nothing-here/traffic");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});
