import { stat, statfs } from "node:fs/promises";
import { join } from "node:path";
import { mirrorFileOf, noSpaceMessage, type Pull } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { downloadChecked, FileMismatch, type FileToWrite } from "../huggingFace/fileWriter";
import { hubError } from "../huggingFace/hubErrors";
import { resolveUrl } from "../huggingFace/hubHttp";
import { diskProblem, isDiskError, partOf, placeFiles, removeLeftovers } from "../huggingFace/leftovers";
import { SymlinkRefused } from "../huggingFace/noFollow";
import { checkPlace } from "../huggingFace/place";
import { mirrorChanged } from "./mirrorPlans";
import { PullProgress } from "./pullProgress";

// SPEC §10.4: pulls download in the background, at most 2 at once (counted across every process
// sharing the store), one file after another. A pull is claimed from the store with a lease its
// progress writes renew, so one a dead process held is taken over, and one a restart left is
// resumed from its `.part` files.

export interface PullRunnerOptions {
  maxRunning?: number;
  /** How long a claim holds without a progress write; a process gone longer loses its pulls. */
  leaseMs?: number;
  /** How often a process looks for queued pulls and ones whose runner died. */
  claimEveryMs?: number;
  /** The writer's backoff before its first retry (tests shorten it). */
  backoffMs?: number;
}

interface Running {
  abort: AbortController;
  done: Promise<void>;
}

/** Why a running pull stopped before its end: each leaves the store and the disk differently. */
type Stop = "cancelled" | "stopping" | "lost";

export class PullRunner {
  readonly #running = new Map<string, Running>();
  #claiming: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly maxRunning: number;
  readonly leaseMs: number;

  constructor(private readonly options: PullRunnerOptions = {}) {
    this.maxRunning = options.maxRunning ?? 2;
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  /**
   * `llmgw serve`: takes up what a restart left and keeps looking for work. An embedded store has
   * no other process, so every lease in it is this process's from before and lapses at once.
   */
  async start(deps: Deps): Promise<void> {
    this.#stopped = false;
    if (deps.store.kind === "pglite") await deps.store.pulls.expireLeases();
    this.nudge(deps);
    this.#timer = setInterval(() => this.nudge(deps), this.options.claimEveryMs ?? 5000);
    this.#timer.unref();
  }

  /** Claims queued pulls while this process has room for them (a new pull calls it at once). */
  nudge(deps: Deps): void {
    this.#claiming = this.#claiming
      .then(() => this.#claim(deps))
      .catch((err: unknown) => deps.log.error({ err }, "claiming a pull failed"));
  }

  /** Resolves once the pull has stopped running here (at once when it does not run here). */
  async settled(id: string): Promise<void> {
    await this.#running.get(id)?.done;
  }

  /** Stops a pull running here that was cancelled; resolves once its files are gone. */
  async cancel(id: string): Promise<void> {
    const running = this.#running.get(id);
    running?.abort.abort("cancelled" satisfies Stop);
    await running?.done;
  }

  /** The server is stopping: downloads stop where they are, to be resumed by the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#claiming;
    const all = [...this.#running.values()];
    for (const r of all) r.abort.abort("stopping" satisfies Stop);
    await Promise.all(all.map((r) => r.done));
  }

  async #claim(deps: Deps): Promise<void> {
    while (!this.#stopped && this.#running.size < this.maxRunning) {
      const pull = await deps.store.pulls.claimNext(deps.origin, this.leaseMs, this.maxRunning);
      if (!pull) return;
      const abort = new AbortController();
      // SPEC §10.5a: whatever a pull throws is that pull's. #download catches its own errors;
      // this catch is the last word, so its promise can never reject into the process.
      const done = this.#download(deps, pull, abort)
        .catch((err: unknown) => deps.log.error({ err, pull: pull.id }, "a pull's runner failed"))
        .finally(() => {
          this.#running.delete(pull.id);
          if (!this.#stopped) this.nudge(deps);
        });
      this.#running.set(pull.id, { abort, done });
    }
  }

  async #download(deps: Deps, claimed: Pull, abort: AbortController): Promise<void> {
    const files = filesToWrite(deps, claimed);
    const progress = new PullProgress(deps, claimed, this.leaseMs, () => abort.abort("lost" satisfies Stop));
    progress.announce();
    try {
      await checkPlace(deps.mirror.dir, claimed);
      await checkSpace(deps, files);
      for (const [i, file] of files.entries()) {
        await downloadChecked(file, {
          access: deps.config.huggingface,
          signal: abort.signal,
          onBytes: (done) => progress.fileBytes(i, done),
          ...(this.options.backoffMs === undefined ? {} : { backoffMs: this.options.backoffMs }),
        });
      }
      // Still this process's, and not cancelled, before anything reaches a final path.
      if (!(await progress.flush())) throw new Error("the pull is no longer this process's");
      await placeFiles(files);
    } catch (err) {
      await this.#ended(deps, claimed, files, progress, abort, err);
      progress.close();
      return;
    }
    // Placed: the pull is complete whatever follows. A digest, scan or plan that fails now is
    // logged (the mirror's watch and hashing catch up), never a `failed` pull with its files in place.
    let told = false;
    try {
      // Hashed as they were written: the mirror's own digests (SPEC §8.1) never read them again.
      for (const f of files) if (f.sha256) await deps.mirror.recordDigest(f.dest, f.sha256);
      // Scanned before it is told complete: a client that sees `complete` finds the version listed.
      await deps.mirror.scan();
      await progress.end({ state: "complete", error: null });
      told = true;
      const version = await deps.mirror.get(claimed.model, claimed.version);
      if (version) await mirrorChanged({ deps, input: { changed: [version], removed: [] } });
    } catch (err) {
      deps.log.error({ err, pull: claimed.id }, "a complete pull's mirror update failed");
      if (!told) await progress.end({ state: "complete", error: null });
    } finally {
      progress.close();
    }
  }

  /** What a pull that did not complete leaves: nothing of it on disk, unless it is to be resumed. */
  async #ended(
    deps: Deps,
    pull: Pull,
    files: FileToWrite[],
    progress: PullProgress,
    abort: AbortController,
    err: unknown,
  ): Promise<void> {
    const why: Stop | null = abort.signal.aborted ? (abort.signal.reason as Stop) : null;
    // The server stopping keeps the `.part` files and the claim lapses: the next start resumes it.
    // A pull taken over by another process is that process's to finish.
    if (why === "stopping" || why === "lost") return;
    const leftover = await removeLeftovers(files);
    if (leftover) deps.log.warn({ pull: pull.id, problem: leftover }, "a pull's leftovers stay on disk");
    if (why === "cancelled") {
      await progress.end({ state: "cancelled" }, { announce: false });
      return;
    }
    const message = failureOf(deps, pull, err);
    if (!(err instanceof FileMismatch || err instanceof SymlinkRefused || err instanceof AppError))
      deps.log.warn({ err, pull: pull.id }, "a pull failed");
    // Failed is final: the store never hands a failed pull out again, so a restart cannot retry it.
    await progress.end({ state: "failed", error: message });
  }
}

/** The reason a failed pull gives: the file's, the disk's (a code, not a stack), else the Hub's. */
function failureOf(deps: Deps, pull: Pull, err: unknown): string {
  if (err instanceof FileMismatch || err instanceof SymlinkRefused) return err.message;
  if (isDiskError(err)) return `writing into the mirror failed: ${diskProblem(err)}`;
  const at = { access: deps.config.huggingface, repo: pull.repo, revision: pull.revision };
  return hubError(err, at).message;
}

/** Where each file of a pull comes from and goes: `<mirror>/<model>/<version>/<file name>`. */
export function filesToWrite(deps: Pick<Deps, "config" | "mirror">, pull: Pull): FileToWrite[] {
  const access = deps.config.huggingface;
  return pull.files.map((f) => ({
    path: f.path,
    url: resolveUrl(access, pull.repo, pull.commit, f.path),
    dest: join(deps.mirror.dir, pull.model, pull.version, mirrorFileOf(f.path)),
    bytes: f.bytes,
    sha256: f.sha256,
    gitOid: f.gitOid,
  }));
}

/** The bytes a pull still has to write: its files' sizes less what their `.part` files hold. */
export async function bytesStillNeeded(files: readonly FileToWrite[]): Promise<number> {
  let needed = 0;
  for (const f of files) {
    const have = await stat(partOf(f.dest)).then(
      (s) => s.size,
      () => 0,
    );
    needed += Math.max(0, f.bytes - have);
  }
  return needed;
}

/** The bytes an unprivileged process may still write in `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** SPEC §10.5: too little disk fails before a byte is written (checked again when a pull resumes). */
async function checkSpace(deps: Deps, files: readonly FileToWrite[]): Promise<void> {
  const needed = await bytesStillNeeded(files);
  const free = await freeBytes(deps.mirror.dir);
  if (needed > free)
    throw new AppError({ code: "no_space", message: noSpaceMessage(needed, free, deps.mirror.dir) });
}
