import { createHash } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ReplicaFile } from "@llmgw/domain";
import { locate, plainSegment, versionDirOf, type Wanted } from "./cacheLayout";
import {
  type DiskSpace,
  evict,
  readMarker,
  recordChecked,
  type SpaceProbe,
  statfsSpace,
  touchVersion,
} from "./cacheSpace";
import { DownloadSlots, downloadPart, hashOf, MirrorRefused, sizeOf } from "./download";
import { type AgentLog, ReplicaRefused } from "./supervisor";

export const DEFAULT_CACHE_DIR = join(homedir(), ".cache", "llmgw", "weights");

/** The weights cannot be had on this node (checksum, disk, the mirror's refusal): not retried. */
export class WeightsUnavailable extends ReplicaRefused {}

export type WeightsOptions = {
  cacheDir: string;
  /** The server the agent reports to: file URLs are paths on it, fetched with the agent's token. */
  server: string;
  token: string | null;
  /** `--cache-max-gb` in bytes; null: the cache may grow while 10% of the disk stays free. */
  maxBytes?: number | null;
  /** How free space is measured; tests inject their own disk. */
  space?: SpaceProbe;
  /** First wait before retrying an unreachable mirror; doubles up to retryMaxMs. */
  retryMs?: number;
  retryMaxMs?: number;
  /** Downloads at once (SPEC §8.2: two). */
  concurrency?: number;
  log: AgentLog;
};

/** What a replica waiting on its weights is told, as they come. */
export type WeightsWatch = {
  signal: AbortSignal;
  progress(bytesDone: number, bytesTotal: number): void;
  /** Why it waits (an unreachable mirror), or null once it no longer does. */
  waiting(reason: string | null): void;
};

/** Weights on this node for one replica: `{path}`, held from deletion until released. */
export type LocalWeights = { path: string; release(): void };

/** One file being fetched, shared by every replica that needs it. */
type Job = {
  done: number;
  trouble: string | null;
  readonly watchers: Set<() => void>;
  readonly abort: AbortController;
  promise: Promise<void>;
};

/**
 * The agent's weights cache (SPEC §8.2–8.5), laid out `<model>/<version>/<path>`: fetches what a
 * replica needs from the mirror once per node, resuming, checking size and SHA-256, at most two
 * files at a time; keeps versions no replica uses until their space is wanted.
 */
export class WeightsCache {
  private readonly opts: Required<WeightsOptions>;
  private readonly jobs = new Map<string, Job>();
  /** Version directories in use by a replica, with how many use each. */
  private readonly pinned = new Map<string, number>();
  private kept = new Set<string>();
  private readonly markerChains = new Map<string, Promise<void>>();
  private readonly slots: DownloadSlots;
  private roomChain: Promise<unknown> = Promise.resolve();

  constructor(options: WeightsOptions) {
    this.opts = {
      maxBytes: null,
      space: statfsSpace,
      retryMs: 1000,
      retryMaxMs: 30_000,
      concurrency: 2,
      ...options,
    };
    this.slots = new DownloadSlots(this.opts.concurrency);
  }

  /**
   * The replica's files on this node, fetched when missing: the file itself for a one-file
   * version, the version's directory for several. Throws `ReplicaRefused` (a file the server
   * may not name) or `WeightsUnavailable` (checksum, disk, the mirror's refusal).
   */
  async fetch(files: readonly ReplicaFile[], watch: WeightsWatch): Promise<LocalWeights> {
    const wanted = files.map((file) => locate(file, this.opts.server, this.opts.cacheDir));
    const first = wanted[0];
    if (!first) throw new ReplicaRefused("no files to fetch");
    const dir = versionDirOf(first);
    if (wanted.some((w) => versionDirOf(w) !== dir)) {
      throw new ReplicaRefused("refused files: they are not all of one version");
    }
    this.pin(dir);
    let released = false;
    const release = () => {
      if (!released) this.unpin(dir);
      released = true;
    };
    try {
      await mkdir(dir, { recursive: true });
      await touchVersion(dir);
      await this.makeRoom(wanted);
      await this.await(wanted, watch);
    } catch (err) {
      release();
      throw err;
    }
    return { path: wanted.length === 1 ? first.dest : dir, release };
  }

  /** Waits for every file, joining downloads already running, reporting the sum as it grows. */
  private async await(wanted: Wanted[], watch: WeightsWatch): Promise<void> {
    const total = wanted.reduce((sum, w) => sum + w.file.bytes, 0);
    const jobs = wanted.map((w) => ({ w, job: this.jobs.get(w.dest) ?? this.start(w) }));
    const finished = new Set<Job>();
    const update = () => {
      const done = jobs.reduce((sum, { w, job }) => sum + (finished.has(job) ? w.file.bytes : job.done), 0);
      watch.progress(done, total);
      watch.waiting(jobs.find(({ job }) => job.trouble !== null)?.job.trouble ?? null);
    };
    for (const { job } of jobs) job.watchers.add(update);
    const leave = () => {
      for (const { job } of jobs) {
        job.watchers.delete(update);
        // Nobody waits for it any more: stop it; the `.part` stays for the next time.
        if (job.watchers.size === 0) job.abort.abort();
      }
    };
    watch.signal.addEventListener("abort", leave, { once: true });
    update();
    try {
      await Promise.all(
        jobs.map(({ job }) =>
          job.promise.then(() => {
            finished.add(job);
            update();
          }),
        ),
      );
    } finally {
      watch.signal.removeEventListener("abort", leave);
      for (const { job } of jobs) job.watchers.delete(update);
    }
    watch.signal.throwIfAborted();
  }

  private start(wanted: Wanted): Job {
    const job: Job = {
      done: 0,
      trouble: null,
      watchers: new Set(),
      abort: new AbortController(),
      promise: Promise.resolve(),
    };
    job.promise = this.obtain(wanted, job).finally(() => this.jobs.delete(wanted.dest));
    // A job nobody waits on any more must not count as an unhandled rejection.
    job.promise.catch(() => undefined);
    this.jobs.set(wanted.dest, job);
    return job;
  }

  private async obtain({ file, url, dest }: Wanted, job: Job): Promise<void> {
    const { signal } = job.abort;
    const notify = () => {
      for (const watcher of job.watchers) watcher();
    };
    await this.slots.take(signal);
    try {
      if (await this.checkCached(file, dest, signal)) return;
      await mkdir(dirname(dest), { recursive: true });
      let mismatches = 0;
      let wait = this.opts.retryMs;
      for (;;) {
        // Bytes that came in this try mean the mirror is there: a trouble after them is retried at
        // once, with the backoff started afresh.
        let from: number | null = null;
        try {
          const got = await downloadPart({
            url,
            part: `${dest}.part`,
            bytes: file.bytes,
            token: this.opts.token,
            signal,
            onBytes: (done) => {
              from ??= done;
              job.done = done;
              notify();
            },
          });
          if (got.bytes === file.bytes && (file.sha256 === null || got.sha256 === file.sha256)) {
            await rename(`${dest}.part`, dest);
            await this.record(file, dest, got.sha256);
            job.trouble = null;
            return;
          }
          await rm(`${dest}.part`, { force: true });
          mismatches += 1;
          const what = got.bytes === file.bytes ? "checksum mismatch" : "size mismatch";
          this.opts.log.warn(
            `weights: ${what} for ${file.path} (${url}); ${mismatches < 2 ? "downloading it again" : "giving up"}`,
          );
          if (mismatches >= 2) throw new WeightsUnavailable(`${what} for ${file.path}`);
          job.done = 0;
        } catch (err) {
          if (err instanceof ReplicaRefused || signal.aborted) throw err;
          if (err instanceof MirrorRefused) throw new WeightsUnavailable(err.message);
          if (isDiskFull(err)) throw new WeightsUnavailable(`the disk of ${this.opts.cacheDir} is full`);
          if (from !== null && job.done > from) wait = this.opts.retryMs;
          job.trouble = `cannot download ${file.path} from the mirror (${describe(err)}); retrying in ${wait / 1000}s`;
          notify();
          await sleep(wait, undefined, { signal });
          wait = Math.min(wait * 2, this.opts.retryMaxMs);
        }
      }
    } finally {
      this.slots.give();
    }
  }

  /**
   * Is the file there and right? Checked against the marker (size and mtime unchanged since it was
   * hashed) or hashed again; a wrong one is deleted, to be fetched again.
   */
  private async checkCached(file: ReplicaFile, dest: string, signal: AbortSignal): Promise<boolean> {
    const found = await stat(dest).catch(() => null);
    if (!found) return false;
    const versionDir = dest.slice(0, dest.length - file.path.length - 1);
    const checked = (await readMarker(versionDir)).files[file.path];
    const unchanged = checked && checked.bytes === found.size && checked.mtimeMs === found.mtimeMs;
    const sha256 =
      found.size !== file.bytes
        ? null
        : unchanged
          ? checked.sha256
          : await hashOf(dest, createHash("sha256"), signal);
    if (sha256 !== null && (file.sha256 === null || sha256 === file.sha256)) {
      if (!unchanged) await this.record(file, dest, sha256);
      return true;
    }
    this.opts.log.warn(`weights: ${dest} is not the mirror's ${file.path}; fetching it again`);
    await rm(dest, { force: true });
    return false;
  }

  private async record(file: ReplicaFile, dest: string, sha256: string): Promise<void> {
    const { size, mtimeMs } = await stat(dest);
    const versionDir = dest.slice(0, dest.length - file.path.length - 1);
    await recordChecked(this.markerChains, versionDir, file.path, { bytes: size, sha256, mtimeMs });
  }

  /**
   * Makes room for what is missing (SPEC §8.4–8.5): deletes versions no replica uses, least
   * recently used first, until the cache fits; fails the replica when the disk cannot hold it.
   * One at a time, counting what downloads already running will still write.
   */
  private makeRoom(wanted: Wanted[]): Promise<void> {
    const next = this.roomChain.then(async () => {
      let needed = 0;
      for (const { file, dest } of wanted) {
        if (this.jobs.has(dest)) continue;
        const have = (await sizeOf(dest)) || (await sizeOf(`${dest}.part`));
        needed += Math.max(0, file.bytes - have);
      }
      if (needed === 0) return;
      const { cacheDir, maxBytes } = this.opts;
      let space: DiskSpace = await this.opts.space(cacheDir);
      let usedBytes = 0;
      const enough = async (cacheBytes: number) => {
        space = await this.opts.space(cacheDir);
        usedBytes = cacheBytes;
        return maxBytes === null
          ? space.freeBytes - needed >= space.totalBytes * 0.1
          : cacheBytes + needed <= maxBytes && needed <= space.freeBytes;
      };
      // Versions a replica uses (or waits for) are never deleted; every running download's is one.
      const { deleted, cacheBytes } = await evict(
        cacheDir,
        new Set([...this.pinned.keys(), ...this.kept]),
        enough,
      );
      for (const dir of deleted) this.opts.log.info(`weights: deleted ${dir}, unused, for room`);
      await enough(cacheBytes);
      const free = maxBytes === null ? space.freeBytes : Math.min(space.freeBytes, maxBytes - usedBytes);
      if (needed > free) {
        throw new WeightsUnavailable(`needs ${gb(needed)}, ${gb(Math.max(0, free))} free in ${cacheDir}`);
      }
    });
    this.roomChain = next.catch(() => undefined);
    return next;
  }

  /**
   * Versions to keep though no replica uses them now (SPEC §11.2: a rollout's two revisions until
   * it is done): never deleted for room meanwhile. Each reply replaces the list.
   */
  keep(versions: readonly { model: string; version: string }[]): void {
    this.kept = new Set(
      versions
        .filter((v) => plainSegment(v.model) && plainSegment(v.version))
        .map((v) => join(this.opts.cacheDir, v.model, v.version)),
    );
  }

  private pin(dir: string): void {
    this.pinned.set(dir, (this.pinned.get(dir) ?? 0) + 1);
  }

  private unpin(dir: string): void {
    const count = (this.pinned.get(dir) ?? 1) - 1;
    if (count > 0) this.pinned.set(dir, count);
    else this.pinned.delete(dir);
  }
}

/** Decimal GB, as disks are sold and `df -H` shows them; MB below a tenth of one. */
function gb(bytes: number): string {
  return bytes < 1e8 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e9).toFixed(1)} GB`;
}

function isDiskFull(err: unknown): boolean {
  return typeof err === "object" && err !== null && "code" in err && err.code === "ENOSPC";
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.message}${cause}`.slice(0, 200);
}
