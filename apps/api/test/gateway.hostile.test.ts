import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@llmgw/log";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newToken, sha256Hex } from "../src/auth/secrets";
import { loadConfig } from "../src/config";
import { type RunningServer, startServer } from "../src/server";
import { modelInput } from "./harness";
import { answerPolitely, HostileEngine, writeMany } from "./hostile-engine";
import { parsePage, samplesOf } from "./prometheus";

// What an engine sends back is not trusted (SPEC §7.5a): a replica reported at a small server of
// the test's own that answers the way a hostile or buggy engine would. `llmgw serve` as it runs
// (its own meter and a client token's limits), so a leaked slot shows in /metrics and a leaked
// concurrency locks the token out.

const SECRET = { admin: newToken(), agent: newToken(), client: newToken() };
const MODEL = "hostile";
const MB = 1024 * 1024;
let server: RunningServer;
let engine: HostileEngine;
let root = "";

async function as(secret: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A chat completion for the hostile model, as the client token sends it. */
function chat(extra: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${SECRET.client}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], ...extra }),
    ...(signal ? { signal } : {}),
  });
}

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const page = parsePage(await (await as(SECRET.admin, "GET", "/metrics")).text());
  return samplesOf(page, name, labels).reduce((sum, s) => sum + s.value, 0);
}

const inFlight = () => metric("llmgw_gateway_in_flight", { model: MODEL });

/**
 * Nothing is held any more: the model has nothing in flight, and the client token (concurrency 2)
 * gets two requests through at once.
 */
async function nothingHeld(): Promise<void> {
  await expect.poll(inFlight, { timeout: 2_000 }).toBe(0);
  engine.behave = answerPolitely;
  const both = await Promise.all([chat(), chat()]);
  expect(both.map((r) => r.status)).toEqual([200, 200]);
  await Promise.all(both.map((r) => r.text()));
}

async function readAll(res: Response): Promise<{ bytes: number; text: string }> {
  const reader = res.body?.getReader();
  let bytes = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    bytes += next.value.byteLength;
    tail = (tail + decoder.decode(next.value, { stream: true })).slice(-4096);
  }
  return { bytes, text: tail };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-hostile-"));
  const file = join(root, "llmgw.yaml");
  await writeFile(
    file,
    [
      "tokens:",
      `  - { name: ops, role: admin, sha256: ${sha256Hex(SECRET.admin)} }`,
      `  - { name: box, role: agent, node: hostile-box, sha256: ${sha256Hex(SECRET.agent)} }`,
      `  - { name: app, role: client, concurrency: 2, sha256: ${sha256Hex(SECRET.client)} }`,
    ].join("\n"),
  );
  // Without the scheduler, the replica the agent reports is the model's, where it is reported.
  const config = loadConfig(
    { config: file, dataDir: root, listen: "127.0.0.1:0" },
    { LLMGW_SCHEDULER: "off" },
  );
  server = await startServer(config, { log: silentLogger() });
  engine = await HostileEngine.start();
  const made = await as(
    SECRET.admin,
    "POST",
    "/api/v1/models",
    modelInput({ name: MODEL, scaling: { min: 1, max: 1 } }),
  );
  expect(made.status).toBe(201);
  const beat = await as(SECRET.agent, "POST", "/api/v1/agents/heartbeat", {
    node: { name: "hostile-box", memoryGB: 64, cpuCount: 16 },
    replicas: [{ id: "hostile-1", model: MODEL, state: "ready", endpoint: engine.url }],
  });
  expect(beat.status).toBe(200);
}, 60_000);

afterEach(() => {
  engine.behave = answerPolitely;
  server.deps.config.gateway.engineIdleSeconds = 120;
});

afterAll(async () => {
  await engine?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("an engine's answer with a Trailer header", () => {
  it("reaches the client in OpenAI's way, and every one frees its slot and the token's concurrency", async () => {
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", trailer: "x-checksum" });
      res.write(
        '{"object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}',
      );
      res.addTrailers({ "x-checksum": "abc" });
      res.end();
    };
    // More than the replica's 4 slots: a leaked slot would make the last ones wait for good.
    for (let i = 0; i < 6; i++) {
      const res = await chat();
      expect(res.status).toBe(200);
      expect(res.headers.get("trailer")).toBeNull();
      expect(await res.json()).toMatchObject({ object: "chat.completion" });
    }
    await nothingHeld();
  });
});

describe("one streamed line of 50 MB without a newline", () => {
  it("passes through without stalling the gateway; counting skips a line over 1 MB", {
    timeout: 20_000,
  }, async () => {
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      void (async () => {
        res.write('data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":11}}\n\n');
        // A usage inside the huge line: not parsed, so the small event's counts stand.
        res.write(
          'data: {"usage":{"prompt_tokens":1000,"completion_tokens":1000},"choices":[{"delta":{"content":"',
        );
        await writeMany(res, 50 * MB);
        res.write('"}}]}\n\n');
        res.end("data: [DONE]\n\n");
      })();
    };
    const before = await metric("llmgw_gateway_completion_tokens_total", { model: MODEL, token: "app" });

    const res = await chat({ stream: true });
    const { bytes, text } = await readAll(res);

    expect(res.status).toBe(200);
    expect(bytes).toBeGreaterThan(50 * MB);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    await expect
      .poll(() => metric("llmgw_gateway_completion_tokens_total", { model: MODEL, token: "app" }))
      .toBe(before + 11);
    await nothingHeld();
  });
});

describe("an engine's response headers", () => {
  it("pass only status, content-type, content-length and cache-control: no-cache; HTML is served as text", async () => {
    const page = "<html><script>alert(document.cookie)</script></html>";
    engine.behave = (_req, res) => {
      res.writeHead(201, {
        "content-type": "text/html; charset=utf-8",
        "content-length": Buffer.byteLength(page),
        "cache-control": "no-cache",
        "set-cookie": "llmgw_session=stolen; Path=/; HttpOnly",
        location: "https://evil.example/",
        "access-control-allow-origin": "*",
        "access-control-allow-credentials": "true",
        "strict-transport-security": "max-age=0",
        "x-engine-secret": "leaked",
        "content-security-policy": "default-src *",
      });
      res.end(page);
    };

    const res = await chat();

    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(page)));
    expect(res.headers.get("cache-control")).toBe("no-cache");
    for (const name of [
      "set-cookie",
      "location",
      "access-control-allow-origin",
      "access-control-allow-credentials",
      "strict-transport-security",
      "x-engine-secret",
    ])
      expect(res.headers.get(name), name).toBeNull();
    // llmgw's own policy, not the engine's.
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(await res.text()).toBe(page);
  });

  it("drop a cache-control other than no-cache, and serve SVG and XML as text", async () => {
    for (const type of [
      "image/svg+xml",
      "application/xml",
      "text/xml; charset=utf-8",
      "application/xhtml+xml",
    ]) {
      engine.behave = (_req, res) => {
        res.writeHead(200, { "content-type": type, "cache-control": "public, max-age=86400" });
        res.end("<svg/>");
      };
      const res = await chat();
      expect(res.headers.get("content-type"), type).toMatch(/^text\/plain/);
      expect(res.headers.get("cache-control"), type).toBeNull();
      await res.text();
    }
  });
});

describe("an engine that sends its head and then nothing", () => {
  it("ends a request after gateway.engineIdleSeconds with a 504 in OpenAI's shape", {
    timeout: 15_000,
  }, async () => {
    server.deps.config.gateway.engineIdleSeconds = 1;
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
    };

    const res = await chat();

    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { type: "server_error", code: "upstream_timeout" } });
    await nothingHeld();
  });

  it("ends a stream that falls silent with an error event", { timeout: 15_000 }, async () => {
    server.deps.config.gateway.engineIdleSeconds = 1;
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
    };

    const res = await chat({ stream: true });
    const { text } = await readAll(res);

    expect(res.status).toBe(200);
    expect(text).toContain('"delta":{"content":"a"}');
    expect(text).toMatch(/data: \{"error":\{[^\n]*"code":"upstream_timeout"/);
    await nothingHeld();
  });
});

describe("every way a request ends frees its slot and its token's concurrency at once", () => {
  it("answered, failed mid-answer, refused by the engine, timed out, and the client gone", {
    timeout: 30_000,
  }, async () => {
    // Answered.
    await (await chat()).text();
    await nothingHeld();

    // Failed: the engine's connection drops after the first bytes of a stream.
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n');
      setTimeout(() => res.destroy(), 20);
    };
    const failed = await readAll(await chat({ stream: true }));
    expect(failed.text).toContain('"code":"upstream_failed"');
    await nothingHeld();

    // Refused by the engine: its own 400 passes through.
    engine.behave = (_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"error":{"message":"bad","type":"invalid_request_error"}}');
    };
    expect((await chat()).status).toBe(400);
    await nothingHeld();

    // Timed out: silent after its head.
    server.deps.config.gateway.engineIdleSeconds = 1;
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[]}\n\n');
    };
    await readAll(await chat({ stream: true }));
    await nothingHeld();
    server.deps.config.gateway.engineIdleSeconds = 120;

    // The client gone mid-stream.
    engine.behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const timer = setInterval(() => res.write('data: {"choices":[]}\n\n'), 10);
      res.once("close", () => clearInterval(timer));
    };
    const closedBefore = engine.closed;
    const leaving = new AbortController();
    const streaming = await chat({ stream: true }, leaving.signal);
    await streaming.body?.getReader().read();
    leaving.abort();
    await expect.poll(() => engine.closed, { timeout: 2_000 }).toBeGreaterThan(closedBefore);
    await nothingHeld();
  });
});

describe("an endpoint on llmgw's own port", () => {
  it("is refused at the heartbeat when at a loopback or unspecified address (400 naming the field)", async () => {
    const port = new URL(server.url).port;
    for (const host of ["127.0.0.1", "localhost", "0.0.0.0", "[::1]", "[::]", "127.0.0.2"]) {
      const res = await as(SECRET.agent, "POST", "/api/v1/agents/heartbeat", {
        node: { name: "hostile-box", memoryGB: 64, cpuCount: 16 },
        replicas: [
          { id: "hostile-1", model: MODEL, state: "ready", endpoint: engine.url },
          { id: "loop-1", model: MODEL, state: "ready", endpoint: `http://${host}:${port}/` },
        ],
      });
      expect(res.status, host).toBe(400);
      const body = (await res.json()) as { error: { fields?: Record<string, string> } };
      expect(Object.keys(body.error.fields ?? {}), host).toEqual(["replicas.1.endpoint"]);
    }
    // The same port on another machine is another server.
    const elsewhere = await as(SECRET.agent, "POST", "/api/v1/agents/heartbeat", {
      node: { name: "hostile-box", memoryGB: 64, cpuCount: 16 },
      replicas: [
        { id: "hostile-1", model: MODEL, state: "ready", endpoint: engine.url },
        { id: "far-1", model: MODEL, state: "starting", endpoint: `http://10.0.0.7:${port}` },
      ],
    });
    expect(elsewhere.status).toBe(200);
    await nothingHeld();
  });
});
