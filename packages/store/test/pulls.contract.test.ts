import type { Pull } from "@llmgw/domain";
import { expect, it } from "vitest";
import { backendFor, useStore } from "./backends";
import { describeOnEachDatabase } from "./testStore";

let sequence = 0;

function aPull(overrides: Partial<Pull> = {}): Pull {
  sequence += 1;
  return {
    id: `pull-${sequence}`,
    repo: "owner/Model-GGUF",
    revision: "main",
    commit: "0123456789abcdef0123456789abcdef01234567",
    model: "model-gguf",
    version: "Q4_K_M",
    state: "queued",
    files: [{ path: "m-Q4_K_M.gguf", bytes: 100, bytesDone: 0, sha256: "a".repeat(64), gitOid: null }],
    bytesDone: 0,
    bytesTotal: 100,
    error: null,
    // Each a second after the last: "oldest first" is well defined.
    at: new Date(Date.UTC(2025, 0, 1) + sequence * 1000).toISOString(),
    by: "ops",
    ...overrides,
  };
}

describeOnEachDatabase("mirror pulls on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  it("keeps a pull and lists the newest first", async () => {
    const first = aPull();
    const second = aPull();
    expect(await store.pulls.insert(first, "k1")).toEqual(first);
    await store.pulls.insert(second, "k2");
    expect(await store.pulls.get(first.id)).toEqual(first);
    expect(await store.pulls.get("nonesuch")).toBeNull();
    expect((await store.pulls.list()).map((p) => p.id)).toEqual([second.id, first.id]);
    expect((await store.pulls.unfinished()).map((p) => p.id)).toEqual([first.id, second.id]);
  });

  it("holds one unfinished pull per key; a finished one leaves the key free", async () => {
    const first = aPull();
    await store.pulls.insert(first, "same files");
    expect(await store.pulls.insert(aPull(), "same files")).toBeNull();
    expect(await store.pulls.unfinishedWithKey("same files")).toEqual(first);

    const claimed = await store.pulls.claimNext("proc-a", 30_000, 2);
    expect(claimed).toMatchObject({ id: first.id, state: "downloading" });
    await store.pulls.finish({ ...first, state: "complete", bytesDone: 100 }, "proc-a");
    expect(await store.pulls.unfinishedWithKey("same files")).toBeNull();
    const again = aPull();
    expect(await store.pulls.insert(again, "same files")).toEqual(again);
  });

  it("lets at most maxRunning pulls download, oldest first, and takes over one whose lease ran out", async () => {
    const [a, b, c] = [aPull(), aPull(), aPull()];
    for (const [i, p] of [a, b, c].entries()) await store.pulls.insert(p, `key-${i}`);

    expect((await store.pulls.claimNext("proc-a", 30_000, 2))?.id).toBe(a.id);
    // A lease already over: its process died, as far as anyone can tell.
    expect((await store.pulls.claimNext("proc-b", -1000, 2))?.id).toBe(b.id);
    expect((await store.pulls.claimNext("proc-c", 30_000, 2))?.id).toBe(b.id);
    expect(await store.pulls.claimNext("proc-c", 30_000, 2)).toBeNull();
    // proc-b lost it: its progress is refused, so it stops.
    expect(
      await store.pulls.progress({ ...b, state: "downloading", bytesDone: 5 }, "proc-b", 30_000),
    ).toBeNull();
    expect(
      await store.pulls.progress({ ...b, state: "downloading", bytesDone: 5 }, "proc-c", 30_000),
    ).toMatchObject({ bytesDone: 5 });

    await store.pulls.expireLeases();
    expect((await store.pulls.claimNext("proc-d", 30_000, 1))?.id).toBe(a.id);
  });

  it("cancels an unfinished pull, saying whose live download it was, and nothing else", async () => {
    const queued = aPull();
    const running = aPull();
    await store.pulls.insert(running, "r");
    await store.pulls.claimNext("proc-a", 30_000, 2);
    await store.pulls.insert(queued, "q");

    expect(await store.pulls.cancel(queued.id, null)).toEqual({
      pull: { ...queued, state: "cancelled" },
      running: null,
    });
    const cancelled = await store.pulls.cancel(running.id, "cancelled by ops");
    expect(cancelled).toMatchObject({
      pull: { state: "cancelled", error: "cancelled by ops" },
      running: "proc-a",
    });
    expect(await store.pulls.progress({ ...running, state: "downloading" }, "proc-a", 30_000)).toBeNull();
    expect(await store.pulls.cancel(running.id, null)).toBeNull();
    expect(await store.pulls.unfinished()).toEqual([]);
    // The runner still ends it as it is: cleaned up, cancelled.
    expect(await store.pulls.finish({ ...running, state: "cancelled" }, "proc-a")).toMatchObject({
      state: "cancelled",
    });
  });
});
