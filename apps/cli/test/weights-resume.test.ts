import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, open, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { until } from "@llmgw/agent/testing";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import { newToken, sha256Hex, tokensYaml } from "@llmgw/api/testing";
import { answer, connect } from "@llmgw/client";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMirrored } from "./ctl-harness";

// SPEC §8.2 against the real server: an agent killed in the middle of a download, started again,
// resumes where its `.part` ends (the server answers a Range request: a 206 on its own metrics), and
// the cached file is the mirror's to the byte (the SHA-256 the mirror published). Then a second
// replica of the same version on the node starts from the cache without another download, and a
// cached file corrupted on disk is downloaded again.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SECRET = { admin: newToken(), agent: newToken() };
const NODE = "resume-node";
/** Big enough that the download is still running when the test sees its `.part`. */
const BYTES = 600_000_000;
// An engine that is ready at once: the weights are what this test is about.
const ENGINE = `
import { createServer } from "node:http";
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
createServer((req, res) => res.writeHead(req.url === "/health" ? 200 : 404).end()).listen(Number(arg("--port")), arg("--host"));
process.on("SIGTERM", () => process.exit(0));
`;

let root = "";
let server: RunningServer;
const agents: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-resume-"));
  await mkdir(join(root, "mirror", "big", "v1"), { recursive: true });
  await writeGgufFile(join(root, "mirror", "big", "v1", "big.gguf"), llama3_8b({ weightsBytes: BYTES }));
  await writeFile(join(root, "engine.mjs"), ENGINE);
  const file = join(root, "llmgw.yaml");
  await writeFile(
    file,
    tokensYaml([
      { name: "ops", role: "admin", sha256: sha256Hex(SECRET.admin) },
      { name: "box", role: "agent", node: NODE, sha256: sha256Hex(SECRET.agent) },
    ]),
  );
  server = await startServer(loadConfig({ config: file, dataDir: root, listen: "127.0.0.1:0" }, {}), {
    log: silentLogger(),
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(agents.map((agent) => stopped(agent)));
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The mirror's file requests the server has answered, by status, from its own /metrics. */
async function mirrorFileRequests(): Promise<Map<string, number>> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${SECRET.admin}` } });
  const line =
    /^llmgw_http_requests_total\{method="GET",route="\/mirror\/:model\/:version\/:file",status="(\d+)"\} (\d+)$/gm;
  return new Map(
    [...(await res.text()).matchAll(line)].map(([, status = "", n = "0"]) => [status, Number(n)]),
  );
}

function startAgent(): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      "scripts/llmgw.mjs",
      "agent",
      ...["--server", server.url, "--name", NODE, "--interval", "0.5"],
      ...["--cache-dir", join(root, "cache"), "--advertise-host", "127.0.0.1"],
      ...[
        "--engine-command",
        `llamacpp=${process.execPath} ${join(root, "engine.mjs")} --host {host} --port {port}`,
      ],
    ],
    { cwd: ROOT, env: { ...process.env, LLMGW_TOKEN: SECRET.agent }, stdio: "ignore" },
  );
  agents.push(child);
  return child;
}

function stopped(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  return exited;
}

describe("a download cut by the agent's death (SPEC §8.2)", () => {
  it("resumes with Range after a restart; a second replica downloads nothing; a corrupted copy is fetched again", async () => {
    const { api } = connect({ server: server.url, token: SECRET.admin });
    const mirrored = join(root, "mirror", "big", "v1", "big.gguf");
    const published = await sha256OfFile(mirrored);
    await until(
      async () => (await answer(api.mirror.$get())).some((v) => v.files.some((f) => f.sha256 === published)),
      "the mirror's SHA-256 of big.gguf",
      60_000,
    );
    await serveMirrored(api, "big", 4096);

    const part = join(root, "cache", "big", "v1", "big.gguf.part");
    const first = startAgent();
    await until(
      async () => ((await stat(part).catch(() => null))?.size ?? 0) > 50_000_000,
      "a .part past 50 MB",
      60_000,
    );
    await stopped(first, "SIGKILL");
    const left = (await stat(part)).size;
    expect(left).toBeLessThan(BYTES);

    startAgent();
    const ready = async (count: number) =>
      (await answer(api.fleet.replicas.$get())).filter((r) => r.model === "big" && r.state === "ready")
        .length >= count;
    await until(() => ready(1), "a ready replica of big", 90_000);

    const cached = join(root, "cache", "big", "v1", "big.gguf");
    expect((await stat(cached)).size).toBe(BYTES);
    expect(await sha256OfFile(cached)).toBe(published);
    const before = await mirrorFileRequests();
    expect(before.get("206")).toBe(1);

    // A second replica on the same node: the cached version serves it; the mirror sends nothing more.
    await answer(
      api.models[":name"].target.$post({ param: { name: "big" }, json: { replicas: 2, dryRun: false } }),
    );
    await until(() => ready(2), "two ready replicas of big", 90_000);
    expect(await mirrorFileRequests()).toEqual(before);

    // A cached file changed on disk is checked again, found wrong, and downloaded afresh (§8.4).
    await Promise.all(agents.map((agent) => stopped(agent)));
    const handle = await open(cached, "r+");
    await handle.write(Buffer.from("not the mirror's bytes"), 0, undefined, 4096);
    await handle.close();
    startAgent();
    await until(
      async () => ((await mirrorFileRequests()).get("200") ?? 0) > (before.get("200") ?? 0),
      "a fresh download",
      90_000,
    );
    await until(() => ready(2), "two ready replicas of big again", 90_000);
    expect(await sha256OfFile(cached)).toBe(published);
  }, 300_000);
});
