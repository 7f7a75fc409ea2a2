import { randomUUID } from "node:crypto";
import {
  type ChangeEvent,
  DRAIN_SETTLE_MS,
  isAwake,
  LOCAL_DRAIN_SETTLE_MS,
  modelOf,
  modeOf,
  type Replica,
  type ReplicaWrite,
  type Schedule,
  schedule,
  scheduleWrites,
  usageOn,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { advanceRollouts } from "../rollout/advance";
import { commit } from "../services/commit";
import { type Snapshot, withReplicas } from "../world";
import { NO_SCALE_READING, type ScaleReading, type SchedulerRuntime, type SchedulerState } from "./runtime";

/** Whether this process may place replicas now (SPEC §4: one process at a time, by advisory lock). */
export type LeaderCheck = () => Promise<boolean>;
export const alwaysLeader: LeaderCheck = async () => true;

/** What a run is handed beside the app: who may plan, and what the autoscaler reads. */
export interface RunOptions {
  /** Asked before the run; the advisory lock of SPEC §4 slots in here. Without it, this process plans. */
  leader?: LeaderCheck;
  /** The autoscaler's reading (wanted per model, requests per replica); without one, none. */
  scale?: ScaleReading | null;
}

/** Data objects of the events the scheduler published: the loop does not wake itself up for them. */
export const ownEvents = new WeakSet<object>();

/**
 * One reconcile (SPEC §2.6): loads the snapshot, forgets on-demand wakes that have gone idle,
 * plans, and stores the decisions in one transaction with a `replica.changed` event each, and a
 * `node.changed` for each node whose replicas they change (its bar moved). Null
 * when this process is not to schedule (LLMGW_SCHEDULER=off, or not the leader). The autoscaler's
 * wanted replicas and requests per replica come in `options.scale`, read when the run plans.
 */
export function runOnce(
  deps: Deps,
  control: SchedulerState,
  options: RunOptions = {},
): Promise<Schedule | null> {
  const leader = options.leader ?? alwaysLeader;
  const scale = options.scale ?? NO_SCALE_READING;
  // Runs never overlap, whoever starts them (the loop, a test, a route): each waits for the last.
  const run = control.runtime.queue
    .catch(() => undefined)
    .then(() => reconcile(deps, control, leader, scale));
  control.runtime.queue = run;
  return run;
}

async function reconcile(
  deps: Deps,
  control: SchedulerState,
  leader: LeaderCheck,
  scale: ScaleReading,
): Promise<Schedule | null> {
  if (!deps.config.scheduler || !(await leader())) return null;
  const { runtime, wakes } = control;
  const { stats } = runtime;
  const started = performance.now();
  try {
    // SPEC §11.4: rollouts done or rolled back first, so that this plan follows them.
    await advanceRollouts(deps, await deps.world.snapshot());
    const snap = await deps.world.snapshot();
    const now = deps.now().getTime();
    await forgetIdleWakes(deps, wakes, snap, now);
    const inFlight = scale.inFlight();
    // PGlite is one process by construction (SPEC §4): its count is exact the moment it is read.
    const settleMs = deps.store.kind === "pglite" ? LOCAL_DRAIN_SETTLE_MS : DRAIN_SETTLE_MS;
    const plan = schedule({
      models: snap.models,
      nodes: snap.nodes,
      replicas: snap.replicas,
      classes: snap.classes,
      quotas: snap.quotas,
      wakes,
      now,
      newId: (model) => `${model}-${randomUUID().slice(0, 8)}`,
      index: snap.index,
      autoscaled: scale.wanted(),
      drain: {
        inFlight,
        boundMs: deps.config.autoscale.drainSeconds * 1000,
        settleMs,
      },
    });
    const skipped = await apply(deps, snap, plan);
    watchDrains(runtime, await deps.world.snapshot(), inFlight, settleMs, now);
    stats.recordRun(plan, (performance.now() - started) / 1000, skipped);
    return plan;
  } catch (err) {
    stats.recordError((performance.now() - started) / 1000);
    throw err;
  }
}

/**
 * What the loop needs to stop a drained replica without waiting for its interval (SPEC §11.2:
 * a rollout takes the engine's load time and little more): the replicas draining, so that the
 * end of this process's last request on one asks for a run, and when the first with no request
 * may stop.
 */
function watchDrains(
  runtime: SchedulerRuntime,
  snap: Snapshot,
  inFlight: ReadonlyMap<string, number>,
  settleMs: number,
  now: number,
): void {
  const draining = new Set<string>();
  let due: number | null = null;
  for (const r of snap.replicas) {
    if (r.drainingSince === undefined || r.state !== "ready") continue;
    draining.add(r.id);
    if ((inFlight.get(r.id) ?? 0) > 0) continue;
    // One already settled and not stopped by this run waits for what asks for the next.
    const wait = Date.parse(r.drainingSince) + settleMs - now;
    if (wait > 0) due = Math.min(due ?? wait, wait);
  }
  runtime.draining = draining;
  runtime.drainDueMs = due;
}

/**
 * Stores a plan. A replica it changes that an agent's heartbeat changed (or removed) since the
 * snapshot is left alone: the report is newer than the plan, and the next run plans from it.
 * Returns how many writes were left.
 */
async function apply(deps: Deps, snap: Snapshot, plan: Schedule): Promise<number> {
  const writes = scheduleWrites(plan);
  if (writes.length === 0) return 0;
  const planned = new Map<string, Replica>();
  for (const r of snap.replicas) planned.set(r.id, r);
  const { skipped } = await commit(
    deps,
    async (tx) => {
      const nodes = new Set<string>();
      for (const { replica } of writes) {
        const was = planned.get(replica.id);
        if (was?.node) nodes.add(was.node);
      }
      const current = new Map<string, string>();
      for (const r of await tx.replicas.listByNodes([...nodes])) current.set(r.id, JSON.stringify(r));
      const events: ChangeEvent[] = [];
      const kept: typeof writes = [];
      let skipped = 0;
      for (const write of writes) {
        const { replica, removed } = write;
        const was = planned.get(replica.id);
        if (was?.node && current.get(replica.id) !== JSON.stringify(was)) {
          skipped += 1;
          continue;
        }
        kept.push(write);
        const data = removed ? { ...replica, removed: true } : replica;
        ownEvents.add(data);
        events.push({ type: "replica.changed", data });
      }
      for (const event of nodesMoved(deps, snap, planned, kept)) {
        ownEvents.add(event.data);
        events.push(event);
      }
      // All in two statements: one round trip per decision would hold the store for a large plan.
      const stored = await tx.replicas.writeAll(kept);
      return { result: { skipped, stored }, events };
    },
    // Patched into the picture, not read again: on a large fleet a whole read holds up every
    // heartbeat waiting on the snapshot, and a fleet's first beats set off run after run.
    ({ stored }) =>
      (current) =>
        withReplicas(current, stored),
  );
  return skipped;
}

/**
 * A `node.changed` for each node the writes add a replica to, take one from or change one on,
 * with its bar as it is once they are stored (as a heartbeat's carries it): a dashboard keeps every
 * node's bar from these events, never fetching the fleet again.
 */
function nodesMoved(
  deps: Deps,
  snap: Snapshot,
  planned: ReadonlyMap<string, Replica>,
  writes: readonly ReplicaWrite[],
): ChangeEvent[] {
  const byNode = new Map<string, Map<string, Replica>>();
  const on = (name: string) => {
    let held = byNode.get(name);
    if (!held) {
      held = new Map((snap.replicasByNode.get(name) ?? []).map((r) => [r.id, r]));
      byNode.set(name, held);
    }
    return held;
  };
  for (const { replica, removed } of writes) {
    const was = planned.get(replica.id)?.node;
    if (was) on(was).delete(replica.id);
    if (replica.node && !removed) on(replica.node).set(replica.id, replica);
  }
  return [...byNode].flatMap(([name, replicas]) => {
    const node = snap.nodesByName.get(name);
    if (!node) return [];
    const data = { ...deps.world.live(node), usage: usageOn(snap.index, node, [...replicas.values()]) };
    return [{ type: "node.changed" as const, data }];
  });
}

/**
 * Takes in the wakes any process stored, then ends those older than their model's idle timeout
 * and those of models no longer on demand, in memory and in the store.
 */
async function forgetIdleWakes(
  deps: Deps,
  wakes: Map<string, number>,
  snap: Snapshot,
  now: number,
): Promise<void> {
  for (const [name, wokenAt] of await deps.store.wakes.list()) {
    if (wokenAt > (wakes.get(name) ?? Number.NEGATIVE_INFINITY)) wakes.set(name, wokenAt);
  }
  for (const [name, wokenAt] of wakes) {
    const model = snap.modelsByName.get(name);
    if (!model || modeOf(model.scaling) !== "ondemand" || !isAwake(model.scaling, wokenAt, now)) {
      wakes.delete(name);
      await deps.store.wakes.forget(name, wokenAt);
    }
  }
}

/**
 * At start, on-demand models already running count as woken now: a restart (or a store written
 * before wakes were kept) must not stop what was serving a moment ago. They stop after a full
 * idle timeout.
 */
export async function adoptRunningOnDemand(deps: Deps, wakes: Map<string, number>): Promise<void> {
  const snap = await deps.world.snapshot();
  const now = deps.now().getTime();
  for (const r of snap.replicas) {
    const model = modelOf(snap.modelsByName, r);
    if (!model || modeOf(model.scaling) !== "ondemand" || wakes.has(model.name)) continue;
    if (r.state === "starting" || r.state === "ready") wakes.set(model.name, now);
  }
}
