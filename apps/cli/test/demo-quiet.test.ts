import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `llmgw demo` as a newcomer starts it: its generated mirror (about 200 GB of sparse stand-ins) is
// listed at once and never read for digests, so the mirror settles (nothing left to hash) within
// 30 s of the server being ready, and the demo does not keep a core busy.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SETTLES_WITHIN_MS = 30_000;

let demo: ChildProcess;
let scratch = "";
let url = "";
let readyAt = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "llmgw-demo-quiet-"));
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR", "DATABASE_URL"]) delete env[key];
  demo = spawn(
    process.execPath,
    ["scripts/llmgw.mjs", "demo", "--data-dir", scratch, "--listen", "127.0.0.1:0", "--log-format", "json"],
    { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] },
  );
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    demo.once("exit", (code) => reject(new Error(`llmgw demo exited with ${code}: ${out}`)));
    demo.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /"msg":"llmgw ready on (http:\/\/[^ "]+)/.exec(out)?.[1];
      if (ready && readyAt === 0) {
        readyAt = performance.now();
        resolve(ready);
      }
    });
  });
}, 180_000);

afterAll(async () => {
  if (demo && demo.exitCode === null) {
    const exited = new Promise((resolve) => demo.once("exit", resolve));
    demo.kill("SIGTERM");
    await exited;
  }
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function settled(): Promise<{ versions: number; hashing: number }> {
  const mirror = (await (await fetch(`${url}/api/v1/mirror`)).json()) as { items?: unknown[] } | unknown[];
  const versions = Array.isArray(mirror) ? mirror.length : (mirror.items?.length ?? 0);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const hashing = Number(/^llmgw_mirror_files_hashing (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN);
  return { versions, hashing };
}

describe("llmgw demo", () => {
  it("lists its generated mirror and has nothing left to hash within 30 s of being ready", async () => {
    const left = SETTLES_WITHIN_MS - (performance.now() - readyAt);
    await expect
      .poll(settled, { timeout: Math.max(0, left), interval: 250 })
      .toSatisfy(({ versions, hashing }) => versions >= 9 && hashing === 0);
  }, 60_000);
});
