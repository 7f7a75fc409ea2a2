import type { FleetIndex } from "../fleetIndex";
import type { Class, Model, Node, Quota, Replica } from "../schemas";

// What the planner takes and decides (SPEC §2.6), apart from the planner itself, so that the
// planner and its ledger read these shapes without importing the module that runs them.

export interface ScheduleInput {
  models: readonly Model[];
  nodes: readonly Node[];
  replicas: readonly Replica[];
  classes: readonly Class[];
  quotas: readonly Quota[];
  /** On-demand models woken, with when (ms since the epoch). */
  wakes: ReadonlyMap<string, number>;
  /**
   * Autoscaled models' wanted replicas (SPEC §9.3), by name; a model not listed wants its floor.
   * Held within its floor and max here too: the catalogue may have changed since it was worked out.
   */
  autoscaled?: ReadonlyMap<string, number>;
  /**
   * Extra `ready` replicas drain before they stop (SPEC §9.3): given this, they stay ready with
   * `drainingSince` (sent no new request) until no process has a request on one, or `boundMs`.
   * Without it (a dry run, a test of placement alone) they stop at once.
   */
  drain?: {
    /** Requests on each replica, summed over every process (SPEC §9.1); absent is 0. */
    inFlight: ReadonlyMap<string, number>;
    boundMs: number;
    /** How long after it began draining its count is trusted (`drainOver`); default 3 s. */
    settleMs?: number;
  };
  /** ms since the epoch. */
  now: number;
  /** An id for a new replica of `model`, unique among all replicas. */
  newId: (model: string) => string;
  /**
   * The index of these nodes, replicas and classes and of these models, when the caller has it. A
   * model's scaling may differ from the indexed one's (a dry run of a new target); its class,
   * owner and profiles may not.
   */
  index?: FleetIndex;
}

/** A replica preempted: marked stopping, for the replica of a higher class that needs its room. */
export interface Eviction {
  replica: Replica;
  className: string;
  preemptor: { model: string; replica: string; className: string };
}

/** Wanted replicas that were not even made pending: the owner's quota has no room for them. */
export interface HeldBack {
  model: string;
  replicas: number;
  reason: string;
}

/**
 * One reconcile's decisions (SPEC §2.6), each a replica as it should be stored next. Applying
 * them and planning again decides nothing new until the agents or the catalogue move.
 */
export interface Schedule {
  /**
   * Replicas put on a node: `starting` on free capacity, or `pending` with a node when preemption
   * made room there: the victims hold their resources until their agent reports them gone, so it
   * waits, nominated, and a later run starts it (its reason says what it waits for).
   */
  place: Replica[];
  /**
   * Preempted, their reason naming the preemptor: running ones now `stopping`; a pending one
   * nominated on that node loses its place and is placed again like any pending one (`replica`
   * is where it ended up).
   */
  evict: Eviction[];
  /** `stopping`: more than wanted (newest first), or moved off a draining node once replaced. */
  stop: Replica[];
  /**
   * Ready replicas that began draining (`drainingSince`: more than wanted, or moved off a draining
   * node), or that were taken back from draining because they are wanted again.
   */
  drain: Replica[];
  /** Not placed (`pending`, no node), new or with a new reason, in numbers. */
  pending: Replica[];
  /**
   * Pending replicas on no node no longer wanted, or left by a model since removed: deleted (they
   * ran nowhere and hold nothing on a node).
   */
  remove: Replica[];
  heldBack: HeldBack[];
}
