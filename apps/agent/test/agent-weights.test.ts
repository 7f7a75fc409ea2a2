import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReplicaFile } from "@llmgw/domain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningAgent, runAgent } from "../src/loop";
import { probeMachine } from "../src/machine";
import { processEngines } from "../src/processes";
import { type DesiredReplica, Supervisor } from "../src/supervisor";
import { WeightsCache, WeightsUnavailable } from "../src/weights";
import {
  desiredReplica,
  fakeControlPlane,
  fakeMirror,
  type RecordedBeat,
  recordingLog,
  replicaIn,
  until,
} from "./kit";

// An engine that listens where it is told, loads for 300 ms (503), then answers /health 200, and
// writes its argv where the test finds it.
const ENGINE = `
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
writeFileSync(arg("--pid-file"), JSON.stringify({ argv: process.argv.slice(2) }));
const started = Date.now();
createServer((req, res) => {
  res.writeHead(req.url === "/health" && Date.now() - started >= 300 ? 200 : 503).end();
}).listen(Number(arg("--port")), arg("--host"));
process.on("SIGTERM", () => process.exit(0));
`;

const GB = 1e9;
let dir: string;
let cacheDir: string;
let mirror: Awaited<ReturnType<typeof fakeMirror>>;
let stops: (() => Promise<unknown>)[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "llmgw-weights-"));
  cacheDir = join(dir, "cache");
  await writeFile(join(dir, "engine.mjs"), ENGINE);
  mirror = await fakeMirror();
  stops = [];
});

afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  await mirror.close();
  await rm(dir, { recursive: true, force: true });
});

/** A file in the mirror under `/mirror/<model>/<version>/<path>`, as a desired replica lists it. */
function mirrored(path: string, bytes: Buffer, opts: { model?: string; version?: string } = {}): ReplicaFile {
  const url = `/mirror/${opts.model ?? "tiny-llama"}/${opts.version ?? "v1"}/${path}`;
  mirror.files.set(url, bytes);
  return { url, path, bytes: bytes.length, sha256: sha256(bytes) };
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function cache(overrides: Partial<ConstructorParameters<typeof WeightsCache>[0]> = {}): WeightsCache {
  return new WeightsCache({
    cacheDir,
    server: mirror.url,
    token: "agent-secret",
    retryMs: 20,
    log: recordingLog(),
    space: async () => ({ freeBytes: 500 * GB, totalBytes: 1000 * GB }),
    ...overrides,
  });
}

function watch(seen: { done: number; total: number }[] = [], reasons: (string | null)[] = []) {
  return {
    signal: new AbortController().signal,
    progress: (done: number, total: number) => seen.push({ done, total }),
    waiting: (reason: string | null) => reasons.push(reason),
  };
}

describe("the weights cache (SPEC §8.2, §8.4)", () => {
  it("resumes a download cut mid-way with a Range request, with the agent's token", async () => {
    const bytes = randomBytes(1_000_000);
    const file = mirrored("model.gguf", bytes);
    mirror.state.cut = [300_000];
    const reasons: (string | null)[] = [];

    const local = await cache().fetch([file], watch([], reasons));

    expect(local.path).toBe(join(cacheDir, "tiny-llama", "v1", "model.gguf"));
    expect(sha256(await readFile(local.path))).toBe(file.sha256);
    expect(mirror.requests.map((r) => r.range)).toEqual([
      undefined,
      expect.stringMatching(/^bytes=[1-9]\d*-$/),
    ]);
    expect(mirror.requests.every((r) => r.authorization === "Bearer agent-secret")).toBe(true);
    // While it waited to retry, the replica was told why; and told it no longer waits.
    expect(reasons.some((r) => r?.startsWith("cannot download model.gguf from the mirror"))).toBe(true);
    expect(reasons.at(-1)).toBeNull();
    await expect(stat(`${local.path}.part`)).rejects.toThrow();
  });

  it("resumes the `.part` an earlier agent left, and gives a version of several files as its directory", async () => {
    const weights = randomBytes(500_000);
    const files = [mirrored("model-00001.safetensors", weights), mirrored("config.json", Buffer.from("{}"))];
    const versionDir = join(cacheDir, "tiny-llama", "v1");
    await mkdir(versionDir, { recursive: true });
    await writeFile(join(versionDir, "model-00001.safetensors.part"), weights.subarray(0, 123_456));

    const local = await cache().fetch(files, watch());

    expect(local.path).toBe(versionDir);
    expect(mirror.requests.find((r) => r.path.endsWith(".safetensors"))?.range).toBe("bytes=123456-");
    expect(sha256(await readFile(join(versionDir, "model-00001.safetensors")))).toBe(files[0]?.sha256);
  });

  it("fetches again a cached file whose hash is wrong, and trusts one it has checked", async () => {
    const bytes = randomBytes(200_000);
    const file = mirrored("model.gguf", bytes);
    const dest = join(cacheDir, "tiny-llama", "v1", "model.gguf");
    await mkdir(join(cacheDir, "tiny-llama", "v1"), { recursive: true });
    await writeFile(dest, randomBytes(bytes.length));

    await cache().fetch([file], watch());
    expect(sha256(await readFile(dest))).toBe(file.sha256);
    expect(mirror.fetchesOf(file.url)).toBe(1);

    await cache().fetch([file], watch());
    expect(mirror.fetchesOf(file.url)).toBe(1);
  });

  it("downloads a file again once when its checksum is wrong, then gives up naming it", async () => {
    const file = { ...mirrored("model.gguf", randomBytes(100_000)), sha256: sha256(Buffer.from("other")) };
    const failed = cache().fetch([file], watch());
    await expect(failed).rejects.toThrow(WeightsUnavailable);
    await expect(failed).rejects.toThrow("checksum mismatch for model.gguf");
    expect(mirror.fetchesOf(file.url)).toBe(2);
    await expect(stat(join(cacheDir, "tiny-llama", "v1", "model.gguf.part"))).rejects.toThrow();
  });

  it("refuses a file URL off its server or a path out of its version, before any request", async () => {
    const file = mirrored("model.gguf", randomBytes(10));
    await expect(
      cache().fetch([{ ...file, url: "http://elsewhere.invalid/mirror/a/b/c" }], watch()),
    ).rejects.toThrow(/not a path on the mirror/);
    await expect(cache().fetch([{ ...file, path: "../../.bashrc" }], watch())).rejects.toThrow(
      /not a plain path/,
    );
    expect(mirror.requests).toEqual([]);
  });

  it("makes room by deleting the least recently used version no replica uses", async () => {
    const size = 100_000;
    let free = 10 * GB;
    const weights = cache({
      maxBytes: 2.5 * size,
      space: async () => ({ freeBytes: free, totalBytes: 100 * GB }),
    });
    const [a, b, c] = ["va", "vb", "vc"].map((version) => mirrored("m.gguf", randomBytes(size), { version }));
    if (!a || !b || !c) throw new Error("three files");
    const held = await weights.fetch([a], watch());
    (await weights.fetch([b], watch())).release();
    free -= 2 * size;

    await weights.fetch([c], watch());

    // va is in use and stays; vb, unused, went for vc.
    await expect(stat(join(cacheDir, "tiny-llama", "va", "m.gguf"))).resolves.toBeTruthy();
    await expect(stat(join(cacheDir, "tiny-llama", "vb"))).rejects.toThrow();
    held.release();
  });

  it("keeps a rollout's versions though unused until the server stops asking (SPEC §11.2)", async () => {
    const size = 100_000;
    const weights = cache({ maxBytes: 2.5 * size });
    const [old, other, fresh, later] = ["v1", "vx", "v2", "v3"].map((version) =>
      mirrored("m.gguf", randomBytes(size), { version }),
    );
    if (!old || !other || !fresh || !later) throw new Error("four files");
    // The old revision's replica has stopped here; the least recently used version is its.
    (await weights.fetch([old], watch())).release();
    (await weights.fetch([other], watch())).release();
    weights.keep([{ model: "tiny-llama", version: "v1" }]);

    (await weights.fetch([fresh], watch())).release();

    await expect(stat(join(cacheDir, "tiny-llama", "v1", "m.gguf"))).resolves.toBeTruthy();
    await expect(stat(join(cacheDir, "tiny-llama", "vx"))).rejects.toThrow();

    // The rollout is done: the old version is one like any other again.
    weights.keep([]);
    (await weights.fetch([later], watch())).release();
    await expect(stat(join(cacheDir, "tiny-llama", "v1"))).rejects.toThrow();
  });
});

describe("llmgw agent fetching its replicas' weights", () => {
  let supervisor: Supervisor;

  function startSupervisor(weights: WeightsCache = cache()) {
    const template = `"${process.execPath}" "${join(dir, "engine.mjs")}" --model {path} --host {host} --port {port} --threads {threads} --pid-file "${dir}/{id}.json" {args}`;
    supervisor = new Supervisor({
      runner: processEngines({ commands: new Map([["llamacpp", template]]), weights }),
      log: recordingLog(),
      healthEveryMs: 50,
    });
    stops.push(() => supervisor.stopAll());
    return supervisor;
  }

  async function reported(id: string, state: string) {
    await until(
      async () => (await supervisor.report()).some((r) => r.id === id && r.state === state),
      `${id} ${state}`,
    );
    return (await supervisor.report()).find((r) => r.id === id);
  }

  it("fails a replica whose version the disk cannot hold, with both numbers", async () => {
    const file = { ...mirrored("model.gguf", randomBytes(10)), bytes: 4.1 * GB };
    startSupervisor(cache({ space: async () => ({ freeBytes: 2.0 * GB, totalBytes: 100 * GB }) }));
    const replica = desiredReplica({ files: [file] });
    supervisor.apply([replica]);
    expect(await reported(replica.id, "failed")).toMatchObject({
      reason: `needs 4.1 GB, 2.0 GB free in ${cacheDir}`,
    });
    expect(mirror.requests).toEqual([]);
  });

  it("fails a replica whose file's checksum is wrong twice, with the reason", async () => {
    const file = { ...mirrored("model.gguf", randomBytes(10_000)), sha256: sha256(Buffer.from("x")) };
    startSupervisor();
    const replica = desiredReplica({ files: [file] });
    supervisor.apply([replica]);
    expect(await reported(replica.id, "failed")).toMatchObject({
      reason: "checksum mismatch for model.gguf",
    });
  });

  it("downloads a version once for two replicas, and starts both on the local file", async () => {
    const file = mirrored("model.gguf", randomBytes(2_000_000));
    mirror.state.paceMs = 5;
    startSupervisor();
    const [one, two] = [desiredReplica({ files: [file], cpuCores: 3 }), desiredReplica({ files: [file] })];
    supervisor.apply([one, two]);
    const ready = await reported(one.id, "ready");
    await reported(two.id, "ready");

    expect(mirror.fetchesOf(file.url)).toBe(1);
    const { argv } = JSON.parse(await readFile(join(dir, `${one.id}.json`), "utf8")) as { argv: string[] };
    const flag = (name: string) => argv[argv.indexOf(name) + 1];
    expect(flag("--model")).toBe(join(cacheDir, "tiny-llama", "v1", "model.gguf"));
    expect(flag("--host")).toBe("127.0.0.1");
    expect(flag("--threads")).toBe("3");
    expect(ready?.endpoint).toBe(`http://127.0.0.1:${flag("--port")}`);
  });

  it("reports download then load progress as they happen, not at the next interval", async () => {
    // An interval longer than the test: every beat after the first is an early one.
    const control = await fakeControlPlane(60);
    stops.push(() => control.close());
    const file = mirrored("model.gguf", randomBytes(1_500_000));
    mirror.state.paceMs = 40;
    const replica: DesiredReplica = desiredReplica({ files: [file] });
    control.state.desired = [replica];
    startSupervisor();
    const agent: RunningAgent = runAgent({
      server: control.url,
      token: "agent-secret",
      machine: probeMachine({ name: "test-node" }),
      supervisor,
      intervalSeconds: 60,
      log: recordingLog(),
    });
    stops.push(() => agent.stop());

    const phase = (b: RecordedBeat) => replicaIn(b, replica.id)?.progress?.phase;
    const downloading = await control.beat((b) => phase(b) === "download", 0, "a beat while downloading");
    const loading = await control.beat((b) => phase(b) === "load", downloading, "a beat while loading");
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready", loading, "a beat once ready");

    const during = control.beats[downloading] && replicaIn(control.beats[downloading], replica.id);
    expect(during).toMatchObject({ state: "starting", progress: { bytesTotal: file.bytes } });
    // Progress beats are paced: about one a second while the ~1 s download runs, not one a chunk.
    expect(control.beats.filter((b) => phase(b) === "download").length).toBeLessThanOrEqual(4);
    // Progress included, every beat is one the server's schema takes.
    expect(control.invalid).toEqual([]);
  });
});
