import { type Model, type Replica, slotsOf, stoppedReason } from "@llmgw/domain";
import type { Snapshot } from "../world";
import type { Beginning } from "./beginning";
import { BLOCK_BYTES, FIRST_KEY_BYTES, hashOf } from "./beginning";
import {
  type Candidate,
  chooseByBeginning,
  chooseReplica,
  SessionScores,
  type WeightedCandidate,
} from "./choose";
import { GatewayError, unavailable } from "./errors";
import { LearnedBeginnings } from "./learned";
import { revisionPool } from "./revisions";

/** A request waiting in its model's queue for a replica with a free slot. */
export type Waiter = {
  /** performance.now() at arrival: the wait bound counts from here, a retry's too. */
  arrivedAt: number;
  sessionKey: string | null;
  /** The prompt's beginning, when the request has one and no session key (SPEC §7.1a). */
  beginning: Beginning | null;
  /** A replica that just failed this request: another is preferred when one is ready. */
  avoid: string | null;
  grant(lease: Lease): void;
  refuse(err: GatewayError): void;
};

/** A slot on one replica, held while a request is on its way to it or being answered. */
export type Lease = { replica: Replica; endpoint: string; release(): void };

/** A match of this many blocks or more covers the first key: its holder was chosen for that key. */
const FIRST_KEY_BLOCKS = FIRST_KEY_BYTES / BLOCK_BYTES;

/** How far past a waiter held for its prompt's replica the queue is looked at, per pump. */
const SCANNED_WAITERS = 64;

/** A routable replica with what the choice needs of it, worked out once per snapshot. */
type Target = { replica: Replica & { endpoint: string }; slots: number; weight: number; idHash: number };
type Routes = { targets: Target[]; scores: SessionScores };

/** Per snapshot, per model: its routable replicas, their slots and its sessions' scores. */
const routesBySnapshot = new WeakMap<Snapshot, Map<string, Routes>>();

function routesOf(snap: Snapshot, model: Model): Routes {
  let byModel = routesBySnapshot.get(snap);
  if (!byModel) {
    byModel = new Map();
    routesBySnapshot.set(snap, byModel);
  }
  let routes = byModel.get(model.name);
  if (!routes) {
    const targets = (snap.replicasByModel.get(model.name) ?? []).filter(isRoutable).map((replica) => ({
      replica,
      slots: slotsOf(model, replica),
      weight: model.profiles.find((p) => p.name === replica.profile)?.weight ?? 1,
      idHash: hashOf(Buffer.from(replica.id), 0, replica.id.length),
    }));
    routes = { targets, scores: new SessionScores() };
    byModel.set(model.name, routes);
  }
  return routes;
}

function isRoutable(r: Replica): r is Replica & { endpoint: string } {
  return r.state === "ready" && !r.unmanaged && r.endpoint !== null && r.drainingSince === undefined;
}

/**
 * Why a model with no ready replica will not get one soon (SPEC §7.6 `no_capacity`): the scheduler
 * could place its replica nowhere and says so in numbers. Null while one is on its way.
 */
export function noCapacityReason(snap: Snapshot, model: Model): string | null {
  const replicas = (snap.replicasByModel.get(model.name) ?? []).filter((r) => !r.unmanaged);
  if (replicas.some((r) => r.state === "starting" || r.state === "ready" || r.node !== null)) return null;
  return replicas.find((r) => r.state === "pending" && r.reason)?.reason ?? null;
}

/**
 * One model's requests in this process: those waiting, in arrival order, and how many are in
 * flight on each replica (the choice's load, and the slots bound).
 */
export class Lane {
  readonly queue: Waiter[] = [];
  readonly inFlight = new Map<string, number>();
  /** Where this model's prompt beginnings went (SPEC §7.1a). */
  readonly learned = new LearnedBeginnings();
  /** When this process recorded the wake its waiters wait on (performance.now()), for the cold-start figure. */
  wokenAt: number | null = null;
  /** Whether the model had no ready replica when last looked at (its waiters wait for one). */
  noneReady = false;
  #turn = 0;
  #canaryTurn = 0;

  constructor(
    readonly model: string,
    /** Called when a slot frees while requests wait: they may go now. */
    private readonly onFreed: () => void,
    /** Called when this process's last request on a replica ends: a draining one may stop. */
    private readonly onIdle: (replica: string) => void = () => undefined,
    /** Whether another process routes this model too: beginnings then go home (SPEC §7.1a). */
    private readonly shared: () => boolean = () => false,
  ) {}

  get inFlightTotal(): number {
    let total = 0;
    for (const n of this.inFlight.values()) total += n;
    return total;
  }

  /** Whether `model` has a replica to send to in `snap`. */
  ready(snap: Snapshot, model: Model): boolean {
    return routesOf(snap, model).targets.length > 0;
  }

  /** A slot for `waiter` on the best replica with one free, taken; null when all are full. */
  take(
    snap: Snapshot,
    model: Model,
    waiter: Pick<Waiter, "sessionKey" | "avoid" | "beginning">,
  ): Lease | null {
    const routes = routesOf(snap, model);
    let pool = routes.targets;
    if (waiter.avoid !== null && pool.length > 1) {
      const others = pool.filter((t) => t.replica.id !== waiter.avoid);
      if (others.length > 0) pool = others;
    }
    // SPEC §11.3: a held canary's share, by revision.
    pool = revisionPool(model, pool, waiter.sessionKey, this.#canaryTurn);
    if (pool.length === 0) return null;
    const key = waiter.sessionKey;
    if (key === null && waiter.beginning !== null) return this.#takeByBeginning(pool, waiter.beginning);
    const candidates: Candidate[] = pool.map((t) => ({
      id: t.replica.id,
      inFlight: this.inFlight.get(t.replica.id) ?? 0,
      slots: t.slots,
    }));
    const chosen = chooseReplica(
      candidates,
      key,
      this.#turn,
      key === null ? undefined : routes.scores.of(key),
    );
    if (!chosen) return null;
    const target = pool[candidates.indexOf(chosen)] as Target;
    if (key === null) this.#turn++;
    return this.#hold(target);
  }

  /**
   * SPEC §7.1a: the replica that served the longest beginning of this prompt, when the match
   * covers at least half of what was read; else the deterministic choice. Whichever takes it now
   * holds every block of it.
   */
  #takeByBeginning(pool: readonly Target[], beginning: Beginning): Lease | null {
    const candidates: WeightedCandidate[] = pool.map((t) => ({
      id: t.replica.id,
      inFlight: this.inFlight.get(t.replica.id) ?? 0,
      slots: t.slots,
      weight: t.weight,
      idHash: t.idHash,
    }));
    const { blocks } = beginning;
    const match =
      blocks.length > 0 ? this.learned.longest(blocks, (id) => pool.some((t) => t.replica.id === id)) : null;
    const holder =
      match !== null && match.blocks * 2 >= blocks.length
        ? { id: match.id, keyed: match.blocks >= FIRST_KEY_BLOCKS }
        : null;
    const chosen = chooseByBeginning(candidates, holder, beginning.firstKey, this.shared());
    if (!chosen) return null;
    const target = pool[candidates.indexOf(chosen)] as Target;
    this.learned.sent(blocks, target.replica.id);
    return this.#hold(target);
  }

  #hold(target: Target): Lease {
    this.#canaryTurn++;
    const id = target.replica.id;
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    return new HeldSlot(this, target.replica);
  }

  /** A slot of `replica` given back. */
  free(replica: string): void {
    const left = (this.inFlight.get(replica) ?? 1) - 1;
    if (left > 0) this.inFlight.set(replica, left);
    else {
      this.inFlight.delete(replica);
      this.onIdle(replica);
    }
    // Nobody waiting: nothing to dispatch.
    if (this.queue.length > 0) this.onFreed();
  }

  /**
   * Sends waiters in arrival order while slots are free; refuses them all when the model cannot be
   * served (removed, stopped, or its replica placeable nowhere). Returns whether a replica is ready.
   */
  pump(snap: Snapshot): boolean {
    const model = snap.modelsByName.get(this.model);
    if (!model) {
      this.#refuseAll(
        new GatewayError({ code: "model_not_found", message: `the model ${this.model} was removed` }),
      );
      return false;
    }
    const stopped = stoppedReason(model);
    if (stopped !== null) {
      this.#refuseAll(unavailable("model_stopped", stopped, 60));
      return false;
    }
    const ready = this.ready(snap, model);
    this.noneReady = !ready;
    if (!ready) {
      const reason = noCapacityReason(snap, model);
      if (reason) this.#refuseAll(unavailable("no_capacity", reason, 30));
      return false;
    }
    // In arrival order; a waiter that waits for the replica holding its prompt (SPEC §7.1a) does
    // not hold up those behind it that another replica can take now.
    let at = 0;
    while (at < this.queue.length && at < SCANNED_WAITERS) {
      const waiter = this.queue[at];
      if (!waiter) break;
      const lease = this.take(snap, model, waiter);
      if (!lease) {
        if (waiter.beginning === null || waiter.sessionKey !== null) break;
        at++;
        continue;
      }
      this.queue.splice(at, 1);
      waiter.grant(lease);
    }
    return true;
  }

  leave(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at >= 0) this.queue.splice(at, 1);
  }

  #refuseAll(err: GatewayError): void {
    for (const waiter of this.queue.splice(0)) waiter.refuse(err);
  }
}

/** A taken slot; `release` gives it back once, however often it is called. */
class HeldSlot implements Lease {
  readonly endpoint: string;
  #held = true;

  constructor(
    private readonly lane: Lane,
    readonly replica: Replica & { endpoint: string },
  ) {
    this.endpoint = replica.endpoint;
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.lane.free(this.replica.id);
  }
}
