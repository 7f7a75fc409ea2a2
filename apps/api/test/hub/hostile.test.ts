import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ggufFileAt, type HostileCase, hostile, randomLfsFile, type StandInFile, StandInHub } from "../kit";
import { type ServeProcess, spawnServe } from "../multi-kit";
import { expectAnswers, memoryMB, postPull, pullOf } from "./hostile-kit";

// SPEC §10.5a against a real `llmgw serve` and a hostile stand-in Hub: each case is refused or
// fails its own pull, the server answers after every one, its memory grows by less than 200 MB
// across the bombs (from /proc), each deadline fires within its setting + 5 s, a symlink's target
// is untouched, and `kill -9` with those pulls on record starts again and answers.

const DEADLINE_S = 2;
const SLACK_MS = 5000;

let hub: StandInHub;
let root = "";
let server: ServeProcess;
let sequence = 0;
const servers: ServeProcess[] = [];

async function serve(timeoutSeconds: number): Promise<ServeProcess> {
  const config = join(root, "llmgw.yaml");
  await writeFile(
    config,
    `heartbeatSeconds: 3600\nhuggingface:\n  endpoint: ${hub.url}\n  timeoutSeconds: ${timeoutSeconds}\n  idleSeconds: ${DEADLINE_S}\n`,
  );
  const started = await spawnServe({ dataDir: join(root, "data"), config });
  servers.push(started);
  return started;
}

const mirror = (...parts: string[]) => join(root, "data", "mirror", ...parts);

/** A repo of one small GGUF file (its header real), under a fresh name. */
async function ggufRepo(
  extra: StandInFile[] = [],
): Promise<{ repo: string; model: string; file: StandInFile }> {
  const n = ++sequence;
  const file = await ggufFileAt(root, `Case${n}-Q4_K_M.gguf`, 4096);
  const repo = `hostile/Case${n}-GGUF`;
  await hub.addRepo({ repo, files: [file, ...extra] });
  return { repo, model: `case${n}-gguf`, file };
}

/** Runs `work` with `hostileCase` answering for the Hub, then checks the server still answers. */
async function withCase<T>(
  hostileCase: HostileCase | null,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  hub.knobs.intercept = hostileCase ? (at) => hostileCase.intercept(at) : null;
  try {
    return await work();
  } finally {
    hub.knobs.intercept = null;
    await expectAnswers(server, what);
  }
}

beforeAll(async () => {
  hub = await StandInHub.start();
  root = await mkdtemp(join(tmpdir(), "llmgw-hostile-"));
  // Deadlines of 60 s while the bombs go off (a loaded machine must not turn a bound into a
  // timeout); the restarts below take the short one, for the deadline test at the end.
  server = await serve(60);
}, 90_000);

afterAll(async () => {
  for (const s of servers) await s.stop("SIGKILL");
  await hub?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("a hostile Hub against llmgw serve", () => {
  const failedPulls: { id: string; path: string }[] = [];
  /** Pulls downloading when the server is killed. */
  const interrupted: { id: string; model: string; path: string }[] = [];
  /** A pull queued behind them when the server is killed. */
  let queued: { id: string; model: string; path: string } | null = null;

  it("refuses a file name over 240 bytes (502 unsafe_listing) and writes nothing", async () => {
    const n = ++sequence;
    const repo = `hostile/Long${n}-GGUF`;
    await hub.addRepo({ repo, files: [randomLfsFile(`${"L".repeat(296)}-Q4_K_M.gguf`, 1000)] });
    const answer = await withCase(null, "a long name", () => postPull(server, { repo }));
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ code: "unsafe_listing" });
    expect(answer.body.error?.message).toContain("bytes (at most 240)");
  });

  it("answers 409 path_taken when the model's or the version's path is a file", async () => {
    const { repo, model } = await ggufRepo();
    await writeFile(mirror(model), "a file where the model's folder goes\n");
    const asModel = await withCase(null, "a model path taken", () => postPull(server, { repo }));
    expect(asModel.status).toBe(409);
    expect(asModel.body.error).toMatchObject({ code: "path_taken" });
    await rm(mirror(model));
    await mkdir(mirror(model));
    await writeFile(mirror(model, "Q4_K_M"), "a file where the version's folder goes\n");
    const asVersion = await withCase(null, "a version path taken", () => postPull(server, { repo }));
    expect(asVersion.status).toBe(409);
    expect(asVersion.body.error?.message).toContain("version path");
  });

  it.each([".part", ".size"])(
    "fails a pull whose %s is a symlink, naming it, and leaves its target as it was",
    async (suffix) => {
      const { repo, model, file } = await ggufRepo();
      const outside = join(root, `outside${suffix}`);
      await writeFile(outside, "not the mirror's\n");
      await mkdir(mirror(model, "Q4_K_M"), { recursive: true });
      await symlink(outside, mirror(model, "Q4_K_M", `${file.path}${suffix}`));
      const started = await withCase(null, `a ${suffix} symlink`, () => postPull(server, { repo }));
      expect(started.status).toBe(202);
      const id = String(started.body.id);
      await expect.poll(async () => (await pullOf(server, id)).state, { timeout: 20_000 }).toBe("failed");
      expect((await pullOf(server, id)).error).toContain("is a symlink");
      expect(await readFile(outside, "utf8")).toBe("not the mirror's\n");
      failedPulls.push({ id, path: file.path });
      await expectAnswers(server, `a ${suffix} symlink's pull`);
    },
  );

  it.each([
    ["a negative size", { size: -5 }],
    ["a size that is text", { size: "12" }],
    ["a fractional size", { size: 1.5 }],
    ["a SHA-256 that is not one", { oid: "not-a-sha" }],
  ])("answers 502 bad_listing for %s, never a 500", async (_what, listedAs) => {
    const n = ++sequence;
    const repo = `hostile/Sizes${n}-GGUF`;
    await hub.addRepo({ repo, files: [{ ...randomLfsFile(`Sizes${n}-Q4_K_M.gguf`, 1000), listedAs }] });
    for (const dryRun of [true, false]) {
      const answer = await withCase(null, "a wrong-kind listing", () => postPull(server, { repo, dryRun }));
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 502,
        code: "bad_listing",
      });
    }
  });

  describe("bombs", () => {
    let before = 0;
    beforeAll(async () => {
      // One ordinary dry run first: what loading the code for one costs is not the bombs'.
      const { repo } = await ggufRepo();
      expect((await postPull(server, { repo, dryRun: true })).status).toBe(200);
      before = await memoryMB(server, "VmRSS");
    });

    it("refuses a listing that inflates past 64 MB (a 256 MiB gzip bomb)", async () => {
      const { repo } = await ggufRepo();
      const bomb = hostile.gzipListing();
      const answer = await withCase(bomb, "a gzip listing", () => postPull(server, { repo, dryRun: true }));
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 502,
        code: "bad_listing",
      });
      expect(answer.body.error?.message).toContain("over 64 MB");
    });

    it("refuses a listing whose next page is itself, or that runs past 1,000 pages", async () => {
      const { repo } = await ggufRepo();
      const loop = hostile.selfLinkListing();
      const looped = await withCase(loop, "a self link", () => postPull(server, { repo, dryRun: true }));
      expect(looped.body.error).toMatchObject({ code: "bad_listing" });
      expect(looped.body.error?.message).toContain("already sent");
      expect(loop.count).toBe(1);
      const endless = hostile.endlessListing();
      const long = await withCase(endless, "endless pages", () => postPull(server, { repo, dryRun: true }));
      expect(long.body.error).toMatchObject({ code: "bad_listing" });
      expect(long.body.error?.message).toContain("1000 pages");
      expect(endless.count).toBe(1000);
    }, 60_000);

    it("takes no compressed answer to a Range, and reads no further than the range", async () => {
      const { repo } = await ggufRepo();
      const gzip = hostile.gzipRange();
      const oversized = hostile.oversizedRange();
      for (const bomb of [gzip, oversized]) {
        const answer = await withCase(bomb, "a range bomb", () => postPull(server, { repo, dryRun: true }));
        // The header is unreadable, so the quantisation is offered with its refusal, not a 500.
        expect(answer.status).toBe(200);
        const [choice] = answer.body.choices as { refusal: string | null }[];
        expect(choice?.refusal).toEqual(expect.any(String));
        expect(bomb.count).toBeGreaterThan(0);
      }
      // 128 MiB offered for a 2 MB range: the server cut it after the range's length, not at the end.
      await expect.poll(() => oversized.held[0]?.closedAt ?? null, { timeout: 5000 }).not.toBeNull();
      expect(oversized.held[0]?.bytesSent).toBeLessThan(32 * 1024 * 1024);
    });

    it("offers at most 64 quantisations and reads at most 4 headers at once", async () => {
      const n = ++sequence;
      const gguf = await ggufFileAt(root, `Many${n}.gguf`, 4096);
      const files = Array.from({ length: 70 }, (_, i) => ({
        ...gguf,
        path: `many-${String(i).padStart(3, "0")}.gguf`,
      }));
      const repo = `hostile/Many${n}-GGUF`;
      await hub.addRepo({ repo, files });
      let inFlight = 0;
      let most = 0;
      const read = new Set<string>();
      const counting: HostileCase = {
        held: [],
        count: 0,
        intercept({ origin, req, res, url }) {
          if (origin !== "cdn" || req.headers.range === undefined) return false;
          read.add(url.searchParams.get("path") ?? "");
          most = Math.max(most, ++inFlight);
          res.once("close", () => inFlight--);
          return false;
        },
      };
      const answer = await withCase(counting, "many quantisations", () =>
        postPull(server, { repo, dryRun: true }),
      );
      expect(answer.status).toBe(200);
      expect(answer.body.choices).toHaveLength(64);
      expect(read.size).toBe(64);
      expect(most).toBeLessThanOrEqual(4);
    }, 60_000);

    it("grew by less than 200 MB across them", async () => {
      const most = await memoryMB(server, "VmHWM");
      const now = await memoryMB(server, "VmRSS");
      console.info(
        `llmgw serve: ${before.toFixed(0)} MB before the bombs, ${now.toFixed(0)} MB after, ${most.toFixed(0)} MB at most`,
      );
      expect(most - before).toBeLessThan(200);
    });
  });

  it("lets go of the Hub when the client that asked goes away", async () => {
    const { repo } = await ggufRepo();
    const silent = hostile.silent();
    hub.knobs.intercept = (at) => silent.intercept(at);
    const gone = await postPull(server, { repo, dryRun: true }, AbortSignal.timeout(500)).catch(
      (err: unknown) => err,
    );
    expect(gone).toBeInstanceOf(Error);
    // timeoutSeconds is 60 here: only the client's going away ends the Hub's request this soon.
    await expect.poll(() => silent.held[0]?.closedAt ?? null, { timeout: SLACK_MS }).not.toBeNull();
    hub.knobs.intercept = null;
    await expectAnswers(server, "a client gone");
  }, 30_000);

  it(`cuts a download trickling a byte every half second within idleSeconds (${DEADLINE_S} s) + 5 s`, async () => {
    // Two pulls trickling at once (the most that download together): both are on record,
    // downloading, when the server is killed in the next test.
    const trickles: HostileCase[] = [];
    const byPath = new Map<string, HostileCase>();
    hub.knobs.intercept = (at) => {
      const trickle = byPath.get(at.url.searchParams.get("path") ?? "");
      return at.origin === "cdn" && trickle !== undefined && trickle.intercept(at);
    };
    for (const name of ["Trickle", "Broken"]) {
      const n = ++sequence;
      const repo = `hostile/${name}${n}-GGUF`;
      const file = randomLfsFile(`${name}${n}-Q4_K_M.gguf`, 200_000);
      await hub.addRepo({ repo, files: [file] });
      const trickle = hostile.trickle(file.data ?? Buffer.alloc(0));
      byPath.set(file.path, trickle);
      trickles.push(trickle);
      const started = await postPull(server, { repo });
      expect(started.status).toBe(202);
      interrupted.push({
        id: String(started.body.id),
        model: `${name.toLowerCase()}${n}-gguf`,
        path: file.path,
      });
    }
    for (const trickle of trickles) {
      await expect
        .poll(() => trickle.held[0]?.closedAt ?? null, { timeout: DEADLINE_S * 1000 + SLACK_MS + 2000 })
        .not.toBeNull();
      const [first] = trickle.held;
      expect((first?.closedAt ?? Infinity) - (first?.openedAt ?? 0)).toBeLessThan(
        DEADLINE_S * 1000 + SLACK_MS,
      );
      // Resumed, as after any broken connection: still downloading, still trickling.
      await expect.poll(() => trickle.held.length, { timeout: 10_000 }).toBeGreaterThan(1);
    }
    for (const { id } of interrupted) expect((await pullOf(server, id)).state).toBe("downloading");
    // A third waits its turn behind them: queued when the server is killed.
    const { repo, model, file } = await ggufRepo();
    const waiting = await postPull(server, { repo });
    expect(waiting.status).toBe(202);
    queued = { id: String(waiting.body.id), model, path: file.path };
    expect((await pullOf(server, queued.id)).state).toBe("queued");
    await expectAnswers(server, "a trickle");
  }, 40_000);

  it("starts again after kill -9 with those pulls on record, answers, and never restarts a failed one", async () => {
    await server.stop("SIGKILL");
    hub.knobs.intercept = null;
    const [resumed, broken] = interrupted;
    if (!resumed || !broken) throw new Error("the trickle test left no pulls");
    // One `.part` is now a folder with a file in it: resuming it fails, and so does its cleanup
    // (`rm` without recursive), which used to escape the runner and end the process.
    const part = mirror(broken.model, "Q4_K_M", `${broken.path}.part`);
    await rm(part, { force: true });
    await mkdir(part);
    await writeFile(join(part, "inside"), "x");
    hub.requests.length = 0;
    server = await serve(DEADLINE_S);
    await expectAnswers(server, "kill -9");
    await expect
      .poll(async () => (await pullOf(server, resumed.id)).state, { timeout: 30_000 })
      .toBe("complete");
    await expect
      .poll(async () => (await pullOf(server, broken.id)).state, { timeout: 30_000 })
      .toBe("failed");
    expect((await pullOf(server, broken.id)).error).toContain("writing into the mirror failed");
    await expectAnswers(server, "a pull whose cleanup failed");

    // Killed again with a failed pull whose leftovers are still there: none is started again.
    await server.stop("SIGKILL");
    hub.requests.length = 0;
    server = await serve(DEADLINE_S);
    await expectAnswers(server, "a second kill -9");
    await new Promise((r) => setTimeout(r, 1000));
    for (const failed of [...failedPulls, broken]) {
      expect((await pullOf(server, failed.id)).state).toBe("failed");
      expect(hub.requests.filter((r) => r.path.includes(failed.path))).toEqual([]);
    }
  }, 120_000);

  it(`ends a dry run against a Hub that never answers within timeoutSeconds (${DEADLINE_S} s) + 5 s: 504 hub_timeout`, async () => {
    const { repo } = await ggufRepo();
    const silent = hostile.silent();
    const began = Date.now();
    const answer = await withCase(silent, "a silent Hub", () => postPull(server, { repo, dryRun: true }));
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 504,
      code: "hub_timeout",
    });
    expect(Date.now() - began).toBeLessThan(DEADLINE_S * 1000 + SLACK_MS);
    await expect.poll(() => silent.held[0]?.closedAt ?? null, { timeout: 2000 }).not.toBeNull();
  }, 30_000);
});
