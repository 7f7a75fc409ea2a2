import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AppType } from "@llmgw/client";
import { mirrorEntrySchema } from "@llmgw/domain";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { hc } from "hono/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { GB } from "./mirror/fixtures";
import { dataOf, EventStream, parsed, type SseEvent } from "./sse";

// The real `llmgw serve` process on a port the OS picks: what an agent and the dashboard talk to.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** Long enough for a first run that builds the dashboard before it listens. */
const START_MS = 120_000;

let server: ChildProcess | null = null;
let dataDir = "";
let url = "";
const open: EventStream[] = [];

/** Starts `llmgw serve` and resolves with the URL from its "ready" line. */
function startServe(args: string[]): Promise<string> {
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR", "DATABASE_URL"]) delete env[key];
  const child = spawn(process.execPath, ["scripts/llmgw.mjs", "serve", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = child;
  let stdout = "";
  let stderr = "";
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`llmgw serve was not ready in ${START_MS} ms:\n${stdout}${stderr}`)),
      START_MS,
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /llmgw ready on (http:\/\/\S+)/.exec(stdout);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`llmgw serve exited with ${code} before it was ready:\n${stdout}${stderr}`));
    });
  });
}

async function stopServe(): Promise<void> {
  const child = server;
  server = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "llmgw-serve-"));
  // Agents here beat once; a long interval keeps the liveness check from marking them down mid-test.
  const config = join(dataDir, "llmgw.yaml");
  await writeFile(config, "heartbeatSeconds: 3600\n");
  url = await startServe(["--config", config, "--data-dir", dataDir, "--listen", "127.0.0.1:0"]);
}, START_MS + 10_000);

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await stopServe();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function client() {
  return hc<AppType>(`${url}/api/v1`);
}

async function events(lastEventId?: string): Promise<EventStream> {
  const stream = await EventStream.open(`${url}/api/v1/events`, lastEventId, { storedOnly: true });
  open.push(stream);
  return stream;
}

const named = (type: string, name: string) => (e: SseEvent) => e.event === type && dataOf(e).name === name;

describe("llmgw serve", () => {
  it("listens on loopback and answers /healthz from its embedded store", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const res = await fetch(`${url}/healthz`);

    expect(await res.json()).toEqual({ ok: true, store: "pglite" });
  });

  it("announces a heartbeat's node as node.changed on the event stream", async () => {
    const stream = await events();
    const body = heartbeat();

    const res = await client().agents.heartbeat.$post({ json: body });

    expect(res.status).toBe(200);
    const seen = await stream.until(named("node.changed", body.node.name));
    const event = seen.at(-1);
    expect(event?.id).toMatch(/^\d+$/);
    expect(event && dataOf(event)).toMatchObject({ name: body.node.name, state: "ready", memoryGB: 64 });
  });

  it("resumes with Last-Event-ID: exactly the later events, in order, then the live tail", async () => {
    const live = await events();
    const api = client();
    const first = heartbeat();
    await api.agents.heartbeat.$post({ json: first });
    const mark = (await live.until(named("node.changed", first.node.name))).at(-1);
    // Stopped: the server's scheduler places nothing for it, so no replica.changed joins the stream.
    const model = modelInput({ scaling: { min: 0, max: 0 } });
    const second = heartbeat();
    expect((await api.models.$post({ json: model })).status).toBe(201);
    expect((await api.agents.heartbeat.$post({ json: second })).status).toBe(200);
    const later = await live.until(named("node.changed", second.node.name));
    await live.close();

    const resumed = await events(mark?.id ?? "");
    const replayed = await resumed.take(later.length);
    const third = heartbeat();
    await api.agents.heartbeat.$post({ json: third });
    const next = await resumed.next();

    expect(later.map((e) => e.event)).toEqual(["model.changed", "node.changed"]);
    expect(replayed.map(parsed)).toEqual(later.map(parsed));
    expect(next.event).toBe("node.changed");
    expect(dataOf(next).name).toBe(third.node.name);
  });

  it("finds a GGUF file dropped into its mirror directory and announces it with its plan", async () => {
    const stream = await events();
    const model = modelInput().name;

    await writeGgufFile(
      join(dataDir, "mirror", model, "q4", "weights.gguf"),
      llama3_8b({ weightsBytes: 4.92 * GB }),
    );

    const seen = await stream.until((e) => e.event === "mirror.changed" && dataOf(e).model === model, 15_000);
    const entry = mirrorEntrySchema.parse(JSON.parse(seen.at(-1)?.data ?? "null"));
    expect(entry).toMatchObject({
      model,
      version: "q4",
      plan: { engine: "llamacpp", source: `${url}/mirror/${model}/q4/weights.gguf`, minMemoryGB: 8 },
    });
    expect(entry.plan.memoryBasis).toContain("(32 layers × 8 KV heads)");
  });
});
