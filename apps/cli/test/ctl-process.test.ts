import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import type { AppType } from "@llmgw/client";
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
