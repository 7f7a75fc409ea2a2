import { type Model, modeOf, type Replica } from "@llmgw/domain";
import type { Snapshot } from "../world";
import { type Candidate, chooseReplica } from "./choose";
import { GatewayError, unavailable } from "./errors";
import { slotsOf } from "./slots";

/** A request waiting in its model's queue for a replica with a free slot. */
export type Waiter = {
  /** performance.now() at arrival: the wait bound counts from here, a retry's too. */
  arrivedAt: number;
  sessionKey: string | null;
  /** A replica that just failed this request: another is preferred when one is ready. */
  avoid: string | null;
  grant(lease: Lease): void;
  refuse(err: GatewayError): void;
};

/** A slot on one replica, held while a request is on its way to it or being answered. */
export type Lease = { replica: Replica; endpoint: string; release(): void };

/**
 * The replicas a model's requests may go to: its own, `ready`, reported with an endpoint, and not
 * draining (SPEC §9.3: a replica being removed gets no new request).
 */
export function routable(snap: Snapshot, model: Model): (Replica & { endpoint: string })[] {
  return (snap.replicasByModel.get(model.name) ?? []).filter(
    (r): r is Replica & { endpoint: string } =>
      r.state === "ready" && !r.unmanaged && r.endpoint !== null && r.drainingSince === undefined,
  );
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
  /** When this process recorded the wake its waiters wait on (performance.now()), for the cold-start figure. */
  wokenAt: number | null = null;
  /** Whether the model had no ready replica when last looked at (its waiters wait for one). */
  noneReady = false;
  #turn = 0;

  constructor(readonly model: string) {}

  get inFlightTotal(): number {
    let total = 0;
    for (const n of this.inFlight.values()) total += n;
    return total;
  }

  /** A slot for `waiter` on the best replica with one free, taken; null when all are full. */
  take(snap: Snapshot, model: Model, waiter: Pick<Waiter, "sessionKey" | "avoid">, onRelease: () => void) {
    const ready = routable(snap, model);
    const others = ready.filter((r) => r.id !== waiter.avoid);
    const pool = others.length > 0 ? others : ready;
    const candidates: Candidate[] = pool.map((r) => ({
      id: r.id,
      inFlight: this.inFlight.get(r.id) ?? 0,
      slots: slotsOf(model, r),
    }));
    const chosen = chooseReplica(candidates, waiter.sessionKey, this.#turn);
    const replica = chosen && pool.find((r) => r.id === chosen.id);
    if (!replica) return null;
    if (waiter.sessionKey === null) this.#turn++;
    this.inFlight.set(replica.id, (this.inFlight.get(replica.id) ?? 0) + 1);
    let held = true;
    const lease: Lease = {
      replica,
      endpoint: replica.endpoint,
      release: () => {
        if (!held) return;
        held = false;
        const left = (this.inFlight.get(replica.id) ?? 1) - 1;
        if (left > 0) this.inFlight.set(replica.id, left);
        else this.inFlight.delete(replica.id);
        onRelease();
      },
    };
    return lease;
  }

  /**
   * Sends waiters in arrival order while slots are free; refuses them all when the model cannot be
   * served (removed, stopped, or its replica placeable nowhere). Returns whether a replica is ready.
   */
  pump(snap: Snapshot, onRelease: () => void): boolean {
    const model = snap.modelsByName.get(this.model);
    if (!model) {
      this.#refuseAll(new GatewayError(404, "model_not_found", `the model ${this.model} was removed`));
      return false;
    }
    if (modeOf(model.scaling) === "stopped") {
      this.#refuseAll(unavailable("model_stopped", `${model.name} is stopped`));
      return false;
    }
    const ready = routable(snap, model).length > 0;
    this.noneReady = !ready;
    if (!ready) {
      const reason = noCapacityReason(snap, model);
      if (reason) this.#refuseAll(unavailable("no_capacity", reason, 30));
      return false;
    }
    while (this.queue.length > 0) {
      const waiter = this.queue[0];
      if (!waiter) break;
      const lease = this.take(snap, model, waiter, onRelease);
      if (!lease) break;
      this.queue.shift();
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
