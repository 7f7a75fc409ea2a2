import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@llmgw/log";
import { StandInEngine } from "@llmgw/simulation";
import OpenAI, { PermissionDeniedError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newToken, sha256Hex } from "../src/auth/secrets";
import { loadConfig } from "../src/config";
import { type RunningServer, startServer } from "../src/server";
import { modelInput } from "./harness";
import { EventStream } from "./sse";

// The request path as `llmgw serve` wires it (not a test's own meter and admission): a client
// token's model list refuses through the SDK, /metrics counts the request, and model.traffic
// reaches the event stream.

const SECRET = { admin: newToken(), agent: newToken(), client: newToken() };
let server: RunningServer;
let engine: StandInEngine;
let root = "";

async function as(secret: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-wired-"));
  const file = join(root, "llmgw.yaml");
  await writeFile(
    file,
    [
      "tokens:",
      `  - { name: ops, role: admin, sha256: ${sha256Hex(SECRET.admin)} }`,
      `  - { name: box, role: agent, node: gw-box, sha256: ${sha256Hex(SECRET.agent)} }`,
      `  - { name: app, role: client, models: [allowed], concurrency: 4, sha256: ${sha256Hex(SECRET.client)} }`,
    ].join("\n"),
  );
  // Without the scheduler, the replica the agent reports is the model's, where it is reported.
  const config = loadConfig(
    { config: file, dataDir: root, listen: "127.0.0.1:0" },
    { LLMGW_SCHEDULER: "off" },
  );
  server = await startServer(config, { log: silentLogger() });
  engine = await StandInEngine.start({ tokensPerSecond: 1000, replyTokens: 4 });
  for (const name of ["allowed", "other"]) {
    await as(SECRET.admin, "POST", "/api/v1/models", modelInput({ name, scaling: { min: 1, max: 1 } }));
  }
  await as(SECRET.agent, "POST", "/api/v1/agents/heartbeat", {
    node: { name: "gw-box", memoryGB: 64, cpuCount: 16 },
    replicas: [{ id: "wired-1", model: "allowed", state: "ready", endpoint: engine.url }],
  });
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the request path as llmgw serve wires it", () => {
  it("answers a client token's allowed model, refuses another (403 model_not_allowed), and counts it", async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: SECRET.client, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: "allowed",
      messages: [{ role: "user", content: "hello" }],
    });
    const refused = await client.chat.completions
      .create({ model: "other", messages: [{ role: "user", content: "hello" }] })
      .catch((err: unknown) => err);

    expect(answer.choices[0]?.message.content).toBeTruthy();
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect((refused as PermissionDeniedError).code).toBe("model_not_allowed");
    const metrics = await (await as(SECRET.admin, "GET", "/metrics")).text();
    expect(metrics).toMatch(/llmgw_gateway_requests_total\{model="allowed",token="app",status="200"\} 1/);
  });

  it("sends model.traffic to the event stream every second the model has traffic", async () => {
    const res = await fetch(`${server.url}/api/v1/events`, {
      headers: { authorization: `Bearer ${SECRET.admin}`, accept: "text/event-stream" },
    });
    const stream = await EventStream.of(res);
    try {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: SECRET.client, maxRetries: 0 });
      await client.chat.completions.create({ model: "allowed", messages: [{ role: "user", content: "hi" }] });

      const seen = await stream.until((e) => e.event === "model.traffic", 5_000);
      const traffic = JSON.parse(seen.at(-1)?.data ?? "{}") as { model: string; requestsPerSecond: number };
      expect(traffic.model).toBe("allowed");
      expect(traffic.requestsPerSecond).toBeGreaterThan(0);
      expect(seen.at(-1)?.id).toBeNull();
    } finally {
      await stream.close();
    }
  });
});
