import type { Heartbeat, HeartbeatReply, ReplicaProgress } from "@llmgw/domain";

export type DesiredReplica = HeartbeatReply["replicas"][number];
/**
 * A replica as this agent reports it. `reason` says why a replica is `failed` (SPEC §4 heartbeat
 * replicas); the loop sends it once the heartbeat contract carries it (see `onTheWire`).
 */
export type ReportedReplica = NonNullable<Heartbeat["replicas"]>[number] & { reason?: string };

export type AgentLog = { info(line: string): void; warn(line: string): void };

export type Exit = { code: number | null; signal: string | null; error?: string };

/** One running engine for one replica: a real process, or the demo's simulation of one. */
export interface EngineProcess {
  /** Settles once the engine is gone, for whatever reason (also when it never started). */
  readonly exited: Promise<Exit>;
  /** One health probe: does it answer now? */
  healthy(): Promise<boolean>;
  /** What it holds in memory now (GB), or null when that cannot be measured. */
  measureMemoryGB(): Promise<number | null>;
  /** Asks it to stop, forces it after graceMs, and settles when it is gone. */
  stop(graceMs: number): Promise<void>;
  /** The last lines it wrote, to say why it died. */
  lastOutput(): string[];
  /** Where it answers requests (`http://host:port`), reported once it is ready (SPEC §1). */
  readonly endpoint?: string | null;
  /** How far its loading is while it starts (SPEC §8.3), when it can tell. */
  progress?(): ReplicaProgress | null;
}

/**
 * Thrown by a runner that will not run a replica as asked (its source, an arg, an engine this node
 * has no command for): the replica is `failed` with this message as its reason, never restarted.
 */
export class ReplicaRefused extends Error {}

/** What a runner is told while it prepares an engine (fetches its weights), and when to give up. */
export type Launch = {
  /** Aborted when the replica is no longer desired: stop preparing, start nothing. */
  signal: AbortSignal;
  progress(progress: ReplicaProgress | null): void;
  /** Why the replica waits (an unreachable mirror), or null once it no longer does. */
  waiting(reason: string | null): void;
};

export interface EngineRunner {
  /**
   * Starts the engine for a replica; throws when it cannot even be attempted, `ReplicaRefused`
   * when this node will not run it as asked.
   */
  start(replica: DesiredReplica, launch: Launch): Promise<EngineProcess>;
}

/** A change the server should hear of: a state at once, progress at a measured pace (`loop.ts`). */
export type SupervisorChange = "state" | "progress";

export type SupervisorOptions = {
  runner: EngineRunner;
  log: AgentLog;
  /** How often a starting engine is probed for health (SPEC §8.7: 200 ms). */
  healthEveryMs?: number;
  /** First wait before restarting an engine that died; doubles on each restart, up to backoffMaxMs. */
  backoffMs?: number;
  backoffMaxMs?: number;
  /** Restarts in a row before the replica is left failed (the scheduler may place it elsewhere). */
  maxRestarts?: number;
  /** An engine ready this long has earned a fresh count of restarts. */
  stableMs?: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs?: number;
};

type State = "starting" | "ready" | "failed" | "stopping";

type Supervised = {
  desired: DesiredReplica;
  state: State;
  process: EngineProcess | null;
  restarts: number;
  /** Why it is failed, once it is. */
  reason: string | null;
  readySince: number | null;
  restartTimer: NodeJS.Timeout | null;
  /** The engine being started, so a stop that comes meanwhile can wait for it and stop it. */
  launching: Promise<EngineProcess | null> | null;
  /** Settles when a stop asked for has finished; the entry leaves the map then. */
  stopped: Promise<void> | null;
  /** Aborts the launch under way (its weights' download) when the replica is stopped. */
  abort: AbortController;
  /** What the runner said of its preparation: how far, and what it waits on. */
  progress: ReplicaProgress | null;
  waiting: string | null;
};

/** A starting engine that cannot say how far it has loaded. */
const LOADING: ReplicaProgress = { phase: "load", bytesDone: 0, bytesTotal: null };

/**
 * Runs one engine per desired replica and keeps it running: health-checks it until ready,
 * restarts it with a bounded backoff when it dies, stops it when it is no longer desired.
 */
export class Supervisor {
  private readonly replicas = new Map<string, Supervised>();
  private readonly opts: Required<SupervisorOptions>;
  private closed = false;
  private readonly listeners = new Set<(change: SupervisorChange) => void>();

  constructor(options: SupervisorOptions) {
    this.opts = {
      healthEveryMs: 200,
      backoffMs: 1000,
      backoffMaxMs: 30_000,
      maxRestarts: 5,
      stableMs: 60_000,
      graceMs: 10_000,
      ...options,
    };
  }

  /** Calls `listener` on each change of a replica's state or progress, so it can be reported early. */
  onChange(listener: (change: SupervisorChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(change: SupervisorChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Makes the running set what the server wants: starts the new, stops the no longer desired. */
  apply(desired: readonly DesiredReplica[]): void {
    if (this.closed) return;
    const wanted = new Set(desired.map((r) => r.id));
    for (const [id, entry] of this.replicas) {
      if (!wanted.has(id) && entry.state !== "stopping") void this.stopOne(entry);
    }
    for (const replica of desired) {
      // Same id, same replica: a placement never changes in place, so a running one is left alone.
      if (this.replicas.has(replica.id)) continue;
      const entry: Supervised = {
        desired: replica,
        state: "starting",
        process: null,
        restarts: 0,
        reason: null,
        readySince: null,
        restartTimer: null,
        launching: null,
        stopped: null,
        abort: new AbortController(),
        progress: null,
        waiting: null,
      };
      this.replicas.set(replica.id, entry);
      this.changed("state");
      void this.launch(entry);
    }
  }

  /** The replicas this agent runs, as a heartbeat reports them, measured now. */
  async report(): Promise<ReportedReplica[]> {
    return Promise.all(
      [...this.replicas.values()].map(async (entry) => {
        const measured =
          entry.process && entry.state !== "failed" ? await entry.process.measureMemoryGB() : null;
        const endpoint = entry.state === "ready" ? (entry.process?.endpoint ?? null) : null;
        const progress =
          entry.state !== "starting"
            ? null
            : entry.process
              ? (entry.process.progress?.() ?? LOADING)
              : entry.progress;
        const reason =
          entry.state === "failed" ? entry.reason : entry.state === "starting" ? entry.waiting : null;
        return {
          id: entry.desired.id,
          model: entry.desired.model,
          state: entry.state,
          profile: entry.desired.profile,
          ...(measured === null ? {} : { measuredMemoryGB: measured }),
          ...(endpoint === null ? {} : { endpoint }),
          ...(progress === null ? {} : { progress }),
          ...(reason === null ? {} : { reason }),
        };
      }),
    );
  }

  /** Stops every engine (the agent is shutting down) and starts no more. */
  async stopAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.replicas.values()].map((entry) => this.stopOne(entry)));
  }

  /** Starts the engine of an entry in state starting, and watches it until ready. */
  private async launch(entry: Supervised): Promise<void> {
    const { id, model } = entry.desired;
    entry.progress = null;
    entry.waiting = null;
    const launch: Launch = {
      signal: entry.abort.signal,
      progress: (progress) => {
        if (entry.state !== "starting" || entry.process) return;
        const phase = entry.progress?.phase;
        entry.progress = progress;
        this.changed(phase === progress?.phase ? "progress" : "state");
      },
      waiting: (reason) => {
        if (entry.waiting === reason) return;
        entry.waiting = reason;
        this.changed("state");
      },
    };
    const launching = this.opts.runner.start(entry.desired, launch).catch((err: unknown) => {
      if (entry.state === "stopping") return null;
      if (err instanceof ReplicaRefused) this.refused(entry, err.message);
      else
        this.died(entry, {
          code: null,
          signal: null,
          error: err instanceof Error ? err.message : String(err),
        });
      return null;
    });
    entry.launching = launching;
    const process = await launching;
    entry.launching = null;
    entry.progress = null;
    entry.waiting = null;
    // Stopped while it was being started: the stop has it and ends it.
    if (!process || entry.state === "stopping") return;
    entry.process = process;
    this.changed("state");
    this.opts.log.info(`replica ${id} (${model}): starting ${entry.desired.engine}`);
    void process.exited.then((exit) => {
      if (entry.process === process && entry.state !== "stopping") this.died(entry, exit, process);
    });
    while (entry.process === process && entry.state === "starting") {
      if (await process.healthy().catch(() => false)) {
        if (entry.process === process && entry.state === "starting") {
          entry.state = "ready";
          entry.readySince = Date.now();
          this.opts.log.info(`replica ${id} (${model}): ready`);
          this.changed("state");
        }
        return;
      }
      await sleep(this.opts.healthEveryMs);
    }
  }

  private refused(entry: Supervised, reason: string): void {
    entry.state = "failed";
    entry.reason = reason;
    this.opts.log.warn(`replica ${entry.desired.id} (${entry.desired.model}): not started: ${reason}`);
    this.changed("state");
  }

  private died(entry: Supervised, exit: Exit, process?: EngineProcess): void {
    const { id, model } = entry.desired;
    if (entry.readySince !== null && Date.now() - entry.readySince >= this.opts.stableMs) entry.restarts = 0;
    entry.state = "failed";
    entry.process = null;
    entry.readySince = null;
    const how = exit.error ?? (exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`);
    const output = process?.lastOutput() ?? [];
    const tail = output.length > 0 ? `; its last output:\n  ${output.join("\n  ")}` : "";
    if (this.closed || entry.restarts >= this.opts.maxRestarts) {
      entry.reason = `${how}; left failed after ${entry.restarts} restarts`;
      this.opts.log.warn(
        `replica ${id} (${model}): ${how}; left failed after ${entry.restarts} restarts${tail}`,
      );
      this.changed("state");
      return;
    }
    const wait = Math.min(this.opts.backoffMs * 2 ** entry.restarts, this.opts.backoffMaxMs);
    entry.restarts += 1;
    // Reported as starting while it waits to restart: `failed` tells the control plane to place it
    // elsewhere, which is for a replica this agent has given up on.
    entry.state = "starting";
    this.opts.log.warn(`replica ${id} (${model}): ${how}; restarting in ${wait / 1000}s${tail}`);
    this.changed("state");
    entry.restartTimer = setTimeout(() => {
      entry.restartTimer = null;
      if (entry.stopped || this.replicas.get(id) !== entry) return;
      void this.launch(entry);
    }, wait);
  }

  private stopOne(entry: Supervised): Promise<void> {
    if (entry.stopped) return entry.stopped;
    entry.state = "stopping";
    entry.abort.abort();
    if (entry.restartTimer) clearTimeout(entry.restartTimer);
    entry.restartTimer = null;
    const running = entry.process;
    const launching = entry.launching;
    entry.stopped = (async () => {
      const process = running ?? (launching ? await launching : null);
      if (process) {
        this.opts.log.info(`replica ${entry.desired.id} (${entry.desired.model}): stopping`);
        await process.stop(this.opts.graceMs);
      }
      entry.process = null;
      if (this.replicas.get(entry.desired.id) === entry) this.replicas.delete(entry.desired.id);
      this.changed("state");
    })();
    return entry.stopped;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
