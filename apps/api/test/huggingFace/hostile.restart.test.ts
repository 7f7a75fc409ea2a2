import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type HostileCase, hostile, randomLfsFile } from "../kit";
import { DEADLINE_S, expectAnswers, postPull, pullOf, SLACK_MS, useHostileServer } from "./hostile-kit";

// SPEC §10.5a: each deadline fires within its setting + 5 s (a download trickling under 1 kB/s,
// a Hub that never answers), and `llmgw serve` killed with -9 in any state of its pulls
// (downloading, queued, failed) starts again and answers: the interrupted ones resume, one whose
// disk refuses it fails with its reason, and a failed pull is never started again.

const h = useHostileServer();

describe("a hostile Hub, deadlines and kill -9", () => {
  /** Pulls downloading when the server is killed. */
  const interrupted: { id: string; model: string; path: string }[] = [];
  /** A pull queued behind them when the server is killed. */
  let queued: { id: string; model: string; path: string } | null = null;
  /** A pull failed before the kill: never started again. */
  let failed: { id: string; path: string } | null = null;

  it("fails a pull whose .part is a symlink, before any kill", async () => {
    const { repo, model, file } = await h.ggufRepo();
    const outside = join(h.root, "outside.part");
    await writeFile(outside, "not the mirror's\n");
    await mkdir(h.mirror(model, "Q4_K_M"), { recursive: true });
    await symlink(outside, h.mirror(model, "Q4_K_M", `${file.path}.part`));
    const started = await postPull(h.server, { repo });
    expect(started.status).toBe(202);
    const id = String(started.body.id);
    await expect.poll(async () => (await pullOf(h.server, id)).state, { timeout: 20_000 }).toBe("failed");
    expect(await readFile(outside, "utf8")).toBe("not the mirror's\n");
    failed = { id, path: file.path };
  });

  it(`cuts a download trickling a byte every half second within idleSeconds (${DEADLINE_S} s) + 5 s`, async () => {
    // Two pulls trickling at once (the most that download together): both are on record,
    // downloading, when the server is killed in the next test.
    const trickles: HostileCase[] = [];
    const byPath = new Map<string, HostileCase>();
    h.hub.knobs.intercept = (at) => {
      const trickle = byPath.get(at.url.searchParams.get("path") ?? "");
      return at.origin === "cdn" && trickle !== undefined && trickle.intercept(at);
    };
    for (const name of ["Trickle", "Broken"]) {
      const n = h.next();
      const repo = `hostile/${name}${n}-GGUF`;
      const file = randomLfsFile(`${name}${n}-Q4_K_M.gguf`, 200_000);
      await h.hub.addRepo({ repo, files: [file] });
      const trickle = hostile.trickle(file.data ?? Buffer.alloc(0));
      byPath.set(file.path, trickle);
      trickles.push(trickle);
      const started = await postPull(h.server, { repo });
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
    for (const { id } of interrupted) expect((await pullOf(h.server, id)).state).toBe("downloading");
    // A third waits its turn behind them: queued when the server is killed.
    const { repo, model, file } = await h.ggufRepo();
    const waiting = await postPull(h.server, { repo });
    expect(waiting.status).toBe(202);
    queued = { id: String(waiting.body.id), model, path: file.path };
    expect((await pullOf(h.server, queued.id)).state).toBe("queued");
    await expectAnswers(h.server, "a trickle");
  }, 40_000);

  it("starts again after kill -9 with those pulls on record, answers, and never restarts a failed one", async () => {
    h.hub.knobs.intercept = null;
    await h.server.stop("SIGKILL");
    const [resumed, broken] = interrupted;
    if (!resumed || !broken) throw new Error("the trickle test left no pulls");
    // One `.part` is now a folder with a file in it: resuming it fails, and so does its cleanup
    // (`rm` without recursive), which used to escape the runner and end the process.
    const part = h.mirror(broken.model, "Q4_K_M", `${broken.path}.part`);
    await rm(part, { force: true });
    await mkdir(part);
    await writeFile(join(part, "inside"), "x");
    h.hub.requests.length = 0;
    await h.restart(DEADLINE_S);
    await expectAnswers(h.server, "kill -9");
    await expect
      .poll(async () => (await pullOf(h.server, resumed.id)).state, { timeout: 30_000 })
      .toBe("complete");
    await expect
      .poll(async () => (await pullOf(h.server, broken.id)).state, { timeout: 30_000 })
      .toBe("failed");
    expect((await pullOf(h.server, broken.id)).error).toContain("writing into the mirror failed");
    await expectAnswers(h.server, "a pull whose cleanup failed");

    // Killed again with a failed pull whose leftovers are still there: none is started again.
    h.hub.requests.length = 0;
    await h.restart(DEADLINE_S);
    await expectAnswers(h.server, "a second kill -9");
    // The runner takes the oldest claimable pull first: once a new one has completed, it has
    // passed over the failed ones rather than not looked yet.
    const { repo } = await h.ggufRepo();
    const fresh = await postPull(h.server, { repo });
    expect(fresh.status).toBe(202);
    const freshId = String(fresh.body.id);
    await expect
      .poll(async () => (await pullOf(h.server, freshId)).state, { timeout: 30_000 })
      .toBe("complete");
    for (const gone of [failed, broken]) {
      if (!gone) throw new Error("the symlink test left no failed pull");
      expect((await pullOf(h.server, gone.id)).state).toBe("failed");
      expect(h.hub.requests.filter((r) => r.path.includes(gone.path))).toEqual([]);
    }
  }, 120_000);

  it(`ends a dry run against a Hub that never answers within timeoutSeconds (${DEADLINE_S} s) + 5 s: 504 hub_timeout`, async () => {
    const { repo } = await h.ggufRepo();
    const silent = hostile.silent();
    const began = Date.now();
    const answer = await h.withCase(silent, "a silent Hub", () => postPull(h.server, { repo, dryRun: true }));
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 504,
      code: "hub_timeout",
    });
    expect(Date.now() - began).toBeLessThan(DEADLINE_S * 1000 + SLACK_MS);
    await expect.poll(() => silent.held[0]?.closedAt ?? null, { timeout: 2000 }).not.toBeNull();
  }, 30_000);
});
