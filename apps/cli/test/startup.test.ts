import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// How `llmgw serve` and `llmgw demo` start, or refuse to, as separate processes: --help answers,
// a data directory that is not there yet is made, and a busy port stops them at once with its address.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `llmgw …` until it exits, or until `until` sees its output (then it is stopped). */
function llmgw(args: string[], until?: (stdout: string) => boolean): Promise<Run> {
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR", "DATABASE_URL"]) delete env[key];
  const child = spawn(process.execPath, ["scripts/llmgw.mjs", ...args], { cwd: ROOT, env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until?.(stdout)) child.kill("SIGTERM");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let scratch = "";
let busy: Server;
let busyPort = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "llmgw-startup-"));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const address = busy.address();
  busyPort = typeof address === "object" && address ? address.port : 0;
});

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  await rm(scratch, { recursive: true, force: true });
});

describe.each(["serve", "demo"])("llmgw %s", (command) => {
  it("prints its usage for --help and -h, and exits 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const run = await llmgw([command, flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`llmgw ${command} [`);
      expect(run.stdout).toContain("--data-dir D");
      expect(run.stderr).toBe("");
    }
  });

  it("exits non-zero at once on a busy port, naming the address and nothing else", async () => {
    const dataDir = join(scratch, `${command}-busy`);
    const run = await llmgw([command, "--data-dir", dataDir, "--listen", `127.0.0.1:${busyPort}`]);

    expect(run.code).toBe(1);
    // (A first run of a checkout builds the dashboard first, and that build may warn on stderr.)
    expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
      `llmgw: cannot listen on 127.0.0.1:${busyPort}: the address is already in use`,
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
    // The port was checked before the store was opened.
    expect(existsSync(join(dataDir, "db"))).toBe(false);
  });

  it("creates a data directory that does not exist yet, parents included", async () => {
    const dataDir = join(scratch, `${command}-new`, "nested", "data");
    const run = await llmgw([command, "--data-dir", dataDir, "--listen", "127.0.0.1:0"], (out) =>
      out.includes("llmgw ready on"),
    );

    expect(run.stdout).toContain("llmgw ready on http://127.0.0.1:");
    expect(existsSync(join(dataDir, "db"))).toBe(true);
  });
});
