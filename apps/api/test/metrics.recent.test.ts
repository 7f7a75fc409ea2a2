import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TrafficHistory, trafficHistorySchema } from "@llmgw/contract";
import { makeTraffic } from "@llmgw/domain/testing";
import { silentLogger } from "@llmgw/log";
import { StandInEngine } from "@llmgw/simulation";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";
import { RecentTraffic, TRAFFIC_HISTORY_SECONDS } from "../src/metrics/recentTraffic";
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
