import { type FSWatcher, watch } from "node:fs";
import type { MirrorVersion } from "@llmgw/domain";
import type { Logger } from "@llmgw/log";

export interface VersionKey {
  model: string;
  version: string;
}

export type MirrorListener = (changed: MirrorVersion[], removed: VersionKey[]) => void;

export interface WatchOptions {
  dir: string;
  scan: () => Promise<MirrorVersion[]>;
  /** What the listener is assumed to know already; only differences from it are reported. */
  baseline: MirrorVersion[];
  rescanMs: number;
  settleMs: number;
  /**
   * While events keep coming (a file being written), at most one rescan this often: each rescan
   * reads the whole mirror and reports the growing version, with its store write and event.
   */
  busyMs?: number;
  fsWatch: boolean;
  log: Logger;
  /** Subscribes to the mirror's own news (a digest computed): each is a reason to rescan. Returns unsubscribe. */
  nudges?: (nudge: () => void) => () => void;
}

/**
 * Keeps a listener told about the mirror. `fs.watch` (recursive; inotify on Linux since Node 20)
 * makes a dropped-in file show within `settleMs`; the periodic rescan is the safety net for what
 * events miss — network file systems, inotify limits, a mirror directory created after start.
 * Every report is a diff of whole versions, so a missed or duplicated event costs nothing.
 */
export function watchMirror(options: WatchOptions, onChange: MirrorListener): () => void {
  const { dir, scan, rescanMs, settleMs } = options;
  const busyMs = options.busyMs ?? 1000;
  let settledAt = Number.NEGATIVE_INFINITY;
  let known = new Map(options.baseline.map((version) => [keyOf(version), JSON.stringify(version)]));
  let stopped = false;
  let watcher: FSWatcher | null = null;
  let settling: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  async function rescanUntilQuiet(): Promise<void> {
    do {
      again = false;
      let versions: MirrorVersion[];
      try {
        versions = await scan();
      } catch {
        // A directory vanishing mid-scan is the usual cause; the next rescan sees the settled state.
        continue;
      }
      if (stopped) return;
      report(versions);
    } while (again && !stopped);
  }

  function rescan(): void {
    if (running) {
      again = true;
      return;
    }
    running = rescanUntilQuiet().finally(() => {
      running = null;
    });
  }

  function report(versions: MirrorVersion[]): void {
    const next = new Map(versions.map((version) => [keyOf(version), JSON.stringify(version)]));
    const changed = versions.filter((version) => known.get(keyOf(version)) !== next.get(keyOf(version)));
    const removed = [...known.keys()].filter((key) => !next.has(key)).map(parseKey);
    known = next;
    if (changed.length === 0 && removed.length === 0) return;
    try {
      onChange(changed, removed);
    } catch (err) {
      // A listener's bug must not stop the mirror being watched for everyone else.
      options.log.error({ err, dir }, "mirror watch listener failed");
    }
  }

  // Events arrive in bursts (a download writes continuously): the first one after a quiet spell
  // starts a short wait and the rest ride along; while they keep coming, a growing file is
  // reported every busyMs. At every settleMs, a file appended to every 10 ms made about 50
  // rescans a second, each reading the whole mirror.
  function settle(): void {
    if (settling || stopped) return;
    const wait = Math.max(settleMs, settledAt + busyMs - performance.now());
    settling = setTimeout(() => {
      settling = null;
      settledAt = performance.now();
      rescan();
    }, wait);
  }

  function startWatcher(): void {
    if (!options.fsWatch || watcher || stopped) return;
    try {
      watcher = watch(dir, { recursive: true }, settle);
    } catch {
      return; // no such directory yet: the periodic rescan tries again
    }
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
    });
    watcher.unref();
  }

  const timer = setInterval(() => {
    startWatcher();
    rescan();
  }, rescanMs);
  timer.unref();
  startWatcher();
  rescan();
  const unsubscribe = options.nudges?.(settle);

  return () => {
    stopped = true;
    unsubscribe?.();
    clearInterval(timer);
    if (settling) clearTimeout(settling);
    watcher?.close();
    watcher = null;
  };
}

// Model and version names never hold "/" (the layout is directories), so it separates them safely.
export function keyOf(version: VersionKey): string {
  return `${version.model}/${version.version}`;
}

function parseKey(key: string): VersionKey {
  const slash = key.indexOf("/");
  return { model: key.slice(0, slash), version: key.slice(slash + 1) };
}
