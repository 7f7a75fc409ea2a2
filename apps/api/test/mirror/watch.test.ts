import { appendFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { MirrorVersion } from "@llmgw/domain";
import { silentLogger } from "@llmgw/log";
import { llama3_8b, writeGgufFile, writeNotGguf } from "@llmgw/simulation";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMirror, type Mirror, type VersionKey } from "../../src/mirror/scanner";
import { watchMirror } from "../../src/mirror/watch";
import { firstCall, tempDir } from "./fixtures";

interface Change {
  changed: MirrorVersion[];
  removed: VersionKey[];
}

type Wanted = (change: Change) => boolean;

/**
 * Watches `mirror` for the rest of the test. `next(wanted)` resolves with the first report after
 * the call that `wanted` accepts (a file written in place can be seen half-written first).
 */
function watchChanges(mirror: Mirror) {
  const waiting = new Set<{ wanted: Wanted; resolve: (change: Change) => void }>();
  const stop = mirror.watch((changed, removed) => {
    for (const waiter of waiting)
      if (waiter.wanted({ changed, removed })) waiter.resolve({ changed, removed });
  });
  onTestFinished(stop);
  return {
    next: (wanted: Wanted) =>
      firstCall<Change>((resolve) => {
        const waiter = { wanted, resolve };
        waiting.add(waiter);
        return () => waiting.delete(waiter);
      }),
  };
}

const hasVersion = (model: string) => (change: Change) =>
  change.changed.some(
    (v) => v.model === model && v.files[0]?.bytesDone === v.files[0]?.bytesTotal && v.gguf !== null,
  );

describe("Mirror.watch", () => {
  it("sees a GGUF file dropped in through fs.watch, long before the periodic rescan", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "old", "v1", "old.gguf"), llama3_8b({ weightsBytes: 1_000_000 }));
    const mirror = createMirror({ dir, rescanMs: 60_000, settleMs: 20 });
    const changes = watchChanges(mirror);
    // The watch's first scan reports what is there; after it only fs.watch can trigger another soon.
    await changes.next(hasVersion("old"));

    const change = changes.next(hasVersion("new"));
    await writeGgufFile(join(dir, "new", "v1", "new.gguf"), llama3_8b({ architecture: "qwen2" }));

    // Only what changed is reported: the untouched version stays out.
    const { changed, removed } = await change;
    expect(changed.map((v) => [v.model, v.gguf?.architecture])).toEqual([["new", "qwen2"]]);
    expect(removed).toEqual([]);
  });

  it("falls back on the periodic rescan without fs.watch", async () => {
    const dir = await tempDir();
    const mirror = createMirror({ dir, rescanMs: 20, fsWatch: false });
    await mirror.scan();

    const change = watchChanges(mirror).next(hasVersion("m"));
    await writeGgufFile(join(dir, "m", "v1", "m.gguf"), llama3_8b());

    expect((await change).changed).toHaveLength(1);
  });

  it("starts watching a mirror directory created after it", async () => {
    const dir = join(await tempDir(), "mirror");
    const mirror = createMirror({ dir, rescanMs: 20 });

    const change = watchChanges(mirror).next(hasVersion("m"));
    await writeGgufFile(join(dir, "m", "v1", "m.gguf"), llama3_8b());

    expect((await change).changed[0]?.files[0]?.state).toBe("complete");
  });

  it("reports a download's progress and its completion", async () => {
    const dir = await tempDir();
    const part = join(dir, "m", "v1", "m.gguf.part");
    await writeNotGguf(part, 100);
    const mirror = createMirror({ dir, rescanMs: 60_000, settleMs: 20 });
    await mirror.scan();

    const changes = watchChanges(mirror);
    const progress = changes.next((c) => c.changed[0]?.files[0]?.bytesDone === 150);
    await appendFile(part, Buffer.alloc(50));
    expect((await progress).changed[0]?.files[0]?.state).toBe("downloading");

    const done = changes.next((c) => c.changed[0]?.files[0]?.state === "complete");
    await rename(part, join(dir, "m", "v1", "m.gguf"));
    expect((await done).changed[0]?.files[0]).toMatchObject({ file: "m.gguf", bytesTotal: 150 });
  });

  it("reports a version that went away as removed", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "m", "v1", "m.gguf"), llama3_8b());
    await writeGgufFile(join(dir, "m", "v2", "m.gguf"), llama3_8b());
    const mirror = createMirror({ dir, rescanMs: 60_000, settleMs: 20 });
    await mirror.scan();

    const change = watchChanges(mirror).next((c) => c.removed.length > 0);
    await rm(join(dir, "m", "v1"), { recursive: true });

    expect(await change).toEqual({ changed: [], removed: [{ model: "m", version: "v1" }] });
    expect(mirror.list().map((v) => v.version)).toEqual(["v2"]);
  });

  it("tells a watcher started before any scan about everything there", async () => {
    const dir = await tempDir();
    await writeGgufFile(join(dir, "m", "v1", "m.gguf"), llama3_8b());
    const mirror = createMirror({ dir, rescanMs: 60_000 });

    const { changed } = await watchChanges(mirror).next(() => true);

    expect(changed.map((v) => v.version)).toEqual(["v1"]);
  });
});

describe("watchMirror while a file is being written", () => {
  it("rescans about once per busyMs, not after every event", async () => {
    const dir = await tempDir();
    const part = join(dir, "m", "v1", "m.gguf.part");
    await writeNotGguf(part, 100);
    let scans = 0;
    const stop = watchMirror(
      {
        dir,
        scan: async () => {
          scans += 1;
          return [];
        },
        baseline: [],
        rescanMs: 60_000,
        settleMs: 20,
        busyMs: 400,
        fsWatch: true,
        log: silentLogger(),
      },
      () => {},
    );
    onTestFinished(stop);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = scans;
    // 1.2 s of writes every 10 ms: at every settleMs that would be dozens of rescans.
    const until = performance.now() + 1200;
    while (performance.now() < until) {
      await appendFile(part, Buffer.alloc(1000));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = scans - before;
    expect(during).toBeGreaterThanOrEqual(2);
    expect(during).toBeLessThanOrEqual(6);
  });
});
