import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentBundle, agentBundle, sha256Of } from "../src/bundle";
import { AGENT_VERSION } from "../src/version";

// The one-file agent a server hands out (/install/agent.mjs): what it is built from, and that it
// runs with nothing but Node from a folder with no node_modules above it.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Our sources it may hold: the agent, the domain and the logger. Not the contract (the agent reads
 * only its types) nor the client (the agent talks HTTP itself).
 */
const OWN = ["apps/agent/src/", "apps/agent/package.json", "packages/domain/src/", "packages/log/src/"];
/**
 * The packages it may hold, by name: zod, pino and what pino loads. A new one fails here, to be
 * judged: the agent runs on every node. Not Hono's client: it builds Headers, which loads undici.
 */
const PACKAGES = new Set([
  "zod",
  "pino",
  "@pinojs/redact",
  "atomic-sleep",
  "on-exit-leak-free",
  "pino-std-serializers",
  "process-warning",
  "quick-format-unescaped",
  "real-require",
  "safe-stable-stringify",
  "sonic-boom",
  "thread-stream",
]);

const packageOf = (input: string) =>
  /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.split("node_modules/.pnpm/").at(-1) ?? "")?.[1] ??
  null;

let bundle: AgentBundle;
let dir = "";

beforeAll(async () => {
  bundle = await agentBundle();
  // Outside the workspace, with no node_modules in it or above it: what a node has.
  dir = await mkdtemp(join(tmpdir(), "llmgw-agent-bundle-"));
  await writeFile(join(dir, "agent.mjs"), bundle.bytes);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the one-file agent", () => {
  it("holds the agent, the domain, the client and the contract, and no server, store or dashboard", () => {
    const sources = bundle.inputs.filter((input) => packageOf(input) === null);
    expect(sources.filter((file) => !OWN.some((own) => file.startsWith(own)))).toEqual([]);
    // The bundle follows the imports all the way, or the check above proves nothing.
    expect(sources).toContain("apps/agent/src/main.ts");
    expect(sources.some((file) => file.startsWith("packages/domain/src/"))).toBe(true);
    const packages = new Set(bundle.inputs.flatMap((input) => packageOf(input) ?? []));
    expect([...packages].filter((name) => !PACKAGES.has(name))).toEqual([]);
    expect(packages.has("zod")).toBe(true);
  });

  it("runs with nothing but Node, from a folder with no node_modules above it", async () => {
    for (let up = dir; up !== dirname(up); up = dirname(up)) {
      expect(existsSync(join(up, "node_modules")), `${up}/node_modules`).toBe(false);
    }
    const { stdout } = await run(process.execPath, ["agent.mjs", "--version"], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir },
    });
    expect(stdout).toBe(`${AGENT_VERSION}\n`);
    const refused = await run(process.execPath, ["agent.mjs", "--server", "not a url"], { cwd: dir }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused).toMatchObject({ code: 1, stderr: "llmgw agent: --server not a url is not a URL\n" });
  });

  it("talks HTTP without fetch: undici (fetch, Headers) would cost every node about 11 MB", async () => {
    // A heartbeat to a closed port, then a word on whether Node loaded undici meanwhile.
    await writeFile(
      join(dir, "watch.mjs"),
      `setTimeout(() => { process.stderr.write("undici loaded: " + process.moduleLoadList.some((m) => m.includes("undici")) + "\\n"); process.exit(0); }, 1500);`,
    );
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "./watch.mjs", "agent.mjs", "--server", "http://127.0.0.1:9", "--interval", "0.2"],
      { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir } },
    );
    expect(stdout).toContain("cannot reach http://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9)");
    expect(stderr).toBe("undici loaded: false\n");
  });

  it("is at most 1 MB, and its SHA-256 is its bytes'", () => {
    expect(bundle.bytes.length).toBeLessThan(1_000_000);
    expect(gzipSync(bundle.bytes).length).toBeLessThan(bundle.bytes.length / 2);
    expect(bundle.sha256).toBe(sha256Of(bundle.bytes));
    expect(bundle.version).toBe(AGENT_VERSION);
  });

  it("is built again when a file it is built from changes, and only then", async () => {
    const again = await agentBundle();
    expect(again).toMatchObject({ builtNow: false, sha256: bundle.sha256 });
    // A touched source (same bytes, new mtime) is a change as far as the cache can tell; a second
    // ago, since a file changed during a build does not make that build the cached one.
    const entry = join(ROOT, "apps/agent/src/standalone.ts");
    const touched = new Date(Date.now() - 1000);
    await utimes(entry, touched, touched);
    const rebuilt = await agentBundle();
    expect(rebuilt).toMatchObject({ builtNow: true, sha256: bundle.sha256 });
    expect(await agentBundle()).toMatchObject({ builtNow: false, sha256: bundle.sha256 });
  }, 60_000);
});
