import {
  type AutoscaleView,
  type ChangeEvent,
  DEMAND_RECORD_MS,
  DEMAND_STALE_MS,
  type DemandRecord,
  rolloutActive,
  scaledAudit,
  sumDemand,
} from "@llmgw/domain";
import type { NewAuditEntry, StoreTx } from "@llmgw/store";
import type { Deps } from "../deps";
import type { GatewayDemand } from "../gateway/dispatcher";
import { errorRatioOver, REVISION_COUNTS } from "../rollout/traffic";
import type { ScaleReading, SchedulerState } from "../scheduler/runtime";
import { commit, UNCHANGED } from "../services/commit";
import { type BookStep, ScaleBook } from "./book";
import { autoscaleViews, sameView, scaleLines } from "./lines";

/** Rows of processes gone this long are deleted by the leader (they count 0 after 3 s anyway). */
const FORGET_MS = 60_000;

export interface AutoscalerOptions {
  /** This process's demand now: its gateway's (`Gateway.demand()`). */
  demand: () => GatewayDemand;
  /** SPEC §9.1–9.2: every second. Tests drive `tick()` themselves with a long interval. */
  intervalMs?: number;
}

/**
 * The autoscaler, and what the planner reads of it (`ScaleReading`): it is handed to
 * `startScheduler` (and a test's `runOnce`) as the scale reading of every run.
 */
export interface Autoscaler extends ScaleReading {
  /** One second's work, now (the timer calls it; a test with `deps.now` may too). */
  tick(): Promise<void>;
  /** Stops the timer, waits for a tick under way, and takes this process's demand out of the store. */
  stop(): Promise<void>;
}

/**
 * Capacity follows traffic (SPEC §9), in every `llmgw serve` process, once a second:
 *
 * 1. records this process's demand (its gateway's in flight and queued per model, and in flight
 *    per replica) in its one row of the store — while it has any, and once more when it ends;
 * 2. reads the other processes' rows recorded in the last 3 s and the wanted replicas the leader
 *    changed since the last tick, and sums the demand;
 * 3. in the scheduler's leader, steps each autoscaled model's window (`ScaleBook`) and stores what
 *    moved — in the same write as step 1, with a `model.scaled` event and an audit entry by
 *    `autoscaler` for each change of wanted;
 * 4. puts every model's line, its wanted replicas with it, in the snapshot (`GET /models`),
 *    tells open streams of lines that moved (`model.autoscale`); asks the scheduler for a run when
 *    wanted moved or a replica drains. The planner reads wanted and the requests on each replica
 *    from the autoscaler itself, handed to it as its `ScaleReading` (`wanted()`, `inFlight()`).
 *
 * At most one write transaction a tick, and none while the process has nothing to say.
 */
export async function startAutoscaler(
  deps: Deps,
  control: SchedulerState,
  options: AutoscalerOptions,
): Promise<Autoscaler> {
  const { runtime } = control;
  const book = new ScaleBook();
  const first = await deps.store.autoscale.since(0);
  book.take(first.rows);
  let seq = first.seq;
  /** Whether this process's stored row says it has demand (then a quiet second is written once). */
  let recordedSome = false;
  let lastForget = 0;
  let running: Promise<void> | null = null;
  let stopped = false;
  let shown: ReadonlyMap<string, AutoscaleView> = deps.world.autoscale;
  /** The requests on each replica of the other processes, as last read (this process's are asked when needed). */
  let othersInFlight: ReadonlyMap<string, number> = new Map();

  const second = async () => {
    const now = deps.now().getTime();
    const before = await deps.world.snapshot();
    const own = recordOf(options.demand(), now, REVISION_COUNTS.record(before.models));
    const read = await deps.store.read(async (tx) => ({
      rows: await tx.demand.since(now - DEMAND_STALE_MS),
      scales: await tx.autoscale.since(seq),
    }));
    book.take(read.scales.rows);
    seq = read.scales.seq;
    const others = read.rows.filter((r) => r.process !== deps.origin);
    const sum = sumDemand([...others, own], now);
    // SPEC §11.4: requests per revision, summed over the processes within a second.
    REVISION_COUNTS.takeOthers(others);
    const snap = await deps.world.snapshot();
    const lines = scaleLines(snap, sum.models, control.wakes, now);
    const leads = deps.config.scheduler && runtime.leads;
    let step: BookStep = { rows: [], scaled: [] };
    if (leads) step = book.step(lines, now, deps.config.autoscale.scaleDownSeconds);
    else book.forgetWindows();

    const hasSome = Object.keys(own.models).length > 0 || Object.keys(own.revisions ?? {}).length > 0;
    const forget = leads && now - lastForget >= FORGET_MS ? now - FORGET_MS : undefined;
    if (hasSome || recordedSome || step.rows.length > 0) {
      await store(deps, { own: hasSome || recordedSome ? own : null, forget, step, at: now });
      recordedSome = hasSome;
      if (forget !== undefined) lastForget = now;
    }

    othersInFlight = sumDemand(others, now).replicas;
    shown = show(deps, shown, autoscaleViews(snap, lines, book.stored));
    // A draining replica stops once drained: the scheduler looks every second while one drains
    // of an autoscaled model or of a rollout (SPEC §11.2: the rollout waits on it; others, moved
    // off a draining node, wait for its interval).
    const drains = (model: string) =>
      (snap.replicasByModel.get(model) ?? []).some((r) => r.drainingSince !== undefined);
    const draining =
      lines.some(({ model }) => drains(model.name)) ||
      snap.models.some((m) => rolloutActive(m.rollout) && drains(m.name));
    // The other processes' failures on a new revision are judged as soon as they are heard of.
    const failing = snap.models.some((m) => errorRatioOver(m, deps.config.rollout.maxErrorRatio));
    if (leads && (step.scaled.length > 0 || draining || failing)) runtime.nudge();
  };

  const tick = () => {
    running ??= second()
      .catch((err: unknown) => deps.log.error({ err }, "autoscaler tick failed"))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void tick();
  }, options.intervalMs ?? DEMAND_RECORD_MS);
  timer.unref();
  // The planner must not take an autoscaled model down to its floor before the stored wanted is known.
  const snap = await deps.world.snapshot();
  const quiet = scaleLines(snap, new Map(), control.wakes, deps.now().getTime());
  shown = show(deps, shown, autoscaleViews(snap, quiet, book.stored));

  return {
    tick,
    // Each autoscaled model's wanted replicas as shown (SPEC §9.3: a model with no row wants its floor).
    wanted: () => new Map([...shown].map(([name, view]) => [name, view.wanted])),
    // A draining replica stops once no process has a request on it (SPEC §9.3); a stopped
    // autoscaler's own gateway counts none.
    inFlight: () => {
      const sum = new Map(othersInFlight);
      if (stopped) return sum;
      for (const [id, n] of options.demand().replicas) sum.set(id, (sum.get(id) ?? 0) + n);
      return sum;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await deps.store.demand.forget(deps.origin).catch(() => undefined);
    },
  };
}

/** This process's demand as its row holds it: only what is not zero. */
function recordOf(
  demand: GatewayDemand,
  at: number,
  revisions: NonNullable<DemandRecord["revisions"]>,
): DemandRecord {
  const models: Record<string, number> = {};
  for (const [name, { inFlight, queued }] of demand.models) {
    if (inFlight + queued > 0) models[name] = inFlight + queued;
  }
  const counted = Object.keys(revisions).length > 0 ? { revisions } : {};
  return { at, models, replicas: Object.fromEntries(demand.replicas), ...counted };
}

/** The tick's one write: this process's row, and the leader's changes with their events and audit. */
async function store(
  deps: Deps,
  write: { own: DemandRecord | null; forget: number | undefined; step: BookStep; at: number },
): Promise<void> {
  const { own, forget, step, at } = write;
  const writeRows = async (tx: StoreTx) => {
    if (own) await tx.demand.record(deps.origin, own, forget);
    await tx.autoscale.put(step.rows);
  };
  if (step.scaled.length === 0) {
    await deps.store.transaction(writeRows);
    return;
  }
  const iso = new Date(at).toISOString();
  const audit: NewAuditEntry[] = step.scaled.map((s) => ({
    at: iso,
    by: "autoscaler",
    action: "scaled",
    target: s.model,
    field: "wanted",
    ...scaledAudit(s),
  }));
  const events: ChangeEvent[] = step.scaled.map((data) => ({ type: "model.scaled", data }));
  await commit(
    deps,
    async (tx) => {
      await writeRows(tx);
      await tx.audit.append(audit);
      return { result: null, events };
    },
    // Nothing of the snapshot's tables changed (the lines reach it through setAutoscale): kept as it is.
    () => UNCHANGED,
  );
}

/**
 * Puts this second's lines in the snapshot and tells open streams of each that moved. Returns
 * what is now shown.
 */
function show(
  deps: Deps,
  shown: ReadonlyMap<string, AutoscaleView>,
  views: ReadonlyMap<string, AutoscaleView>,
): ReadonlyMap<string, AutoscaleView> {
  const moved: string[] = [];
  for (const [name, view] of views) if (!sameView(shown.get(name), view)) moved.push(name);
  for (const name of shown.keys()) if (!views.has(name)) moved.push(name);
  if (moved.length === 0) return shown;
  deps.world.setAutoscale(views);
  if (deps.hub.ephemeralListeners > 0) {
    for (const model of moved) {
      deps.hub.sendEphemeral({
        type: "model.autoscale",
        data: { model, autoscale: views.get(model) ?? null },
      });
    }
  }
  return views;
}
