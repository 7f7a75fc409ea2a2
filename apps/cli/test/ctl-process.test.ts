import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import { addGgufRepo, StandInHub } from "@llmgw/api/testing";
import type { AppType } from "@llmgw/client";
import type { MirrorEntry } from "@llmgw/domain";
import { makeNode } from "@llmgw/domain/testing";
import { hc } from "hono/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fresh, modelInput, replica } from "./ctl-harness";

// The real wiring: `node scripts/llmgw.mjs ctl …` as a separate process, against a server on a
// port the OS picks. Everything else about ctl is tested in-process; this proves main.ts reaches
// it, the flags arrive, and `--json` leaves stdout holding the JSON alone.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

let server: RunningServer | null = null;
let dataDir = "";

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "llmgw-ctl-process-"));
  // No placement: the catalogue stays as the test seeds it between ctl's read and the test's.
  const config = { ...loadConfig({ dataDir, listen: "127.0.0.1:0" }, {}), scheduler: false };
  server = await startServer(config, { log: silentLogger() });
});

afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

function llmgw(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const key of ["LLMGW_SERVER", "LLMGW_TOKEN", "NO_COLOR"]) delete env[key];
  const child = spawn(process.execPath, ["scripts/llmgw.mjs", ...args], { cwd: ROOT, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

it("`llmgw ctl --server URL models --json` prints the catalogue's JSON and nothing else", async () => {
  const url = server?.url ?? "";
  const client = hc<AppType>(`${url}/api/v1`);
  const name = fresh("served");
  expect((await client.models.$post({ json: modelInput({ name }) })).status).toBe(201);
  const { state, lastSeen, ...node } = makeNode();
  const beat = await client.agents.heartbeat.$post({ json: { node, replicas: [replica(name)] } });
  expect(beat.status).toBe(200);

  const run = await llmgw(["ctl", "--server", url, "models", "--json"]);

  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  const expected: unknown = await (await client.models.$get()).json();
  expect(JSON.parse(run.stdout)).toEqual(expected);
  expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);

  const refused = await llmgw(["ctl", "--server", url, "model", "show", fresh("missing")]);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toBe("");
  expect(refused.stderr).toMatch(/^llmgw ctl: a model called missing-\d+ was not found\n$/);
});

it("`llmgw ctl mirror pull REPO:QUANT --version V` brings a version into the mirror that the wizard can serve", async () => {
  const url = server?.url ?? "";
  const hub = await StandInHub.start();
  try {
    const files = join(dataDir, "hub-files");
    const repo = `stand-in/${fresh("Process")}-GGUF`;
    await addGgufRepo(hub, files, { repo, quants: { Q4_K_M: 1_000_000, Q8_0: 2_000_000 } });
    if (server) server.deps.config.huggingface = { endpoint: hub.url, token: null };

    const run = await llmgw(["ctl", "--server", url, "mirror", "pull", `${repo}:Q8_0`, "--version", "eight"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pulled stand-in\/Process-\d+-GGUF into process-\d+-gguf\/eight: /);

    const listed = await llmgw(["ctl", "--server", url, "mirror", "--json"]);
    const entries = JSON.parse(listed.stdout) as MirrorEntry[];
    const pulled = entries.find((e) => e.version === "eight");
    expect(pulled?.files.map((f) => f.state)).toEqual(["complete"]);
    expect(pulled?.plan).toMatchObject({ engine: "llamacpp", refusal: null });
  } finally {
    await hub.close();
  }
});
