import type { EventType } from "@llmgw/domain";
import { counted, type Model, modeOf } from "@llmgw/domain";
import type { Deps } from "../deps";
import type { Snapshot } from "../world";
import type { GatewayControl } from "./control";
import { unavailable } from "./errors";
import { Lane, type Lease, type Waiter } from "./lanes";
import type { GatewayMeter } from "./meter";
import { Peers } from "./peers";

export type DispatchLimits = { maxQueue: number; maxWaitMs: number };

/** What one process's gateway holds, as `Dispatcher.demandByModel` gives it. */
export type GatewayDemand = {
  /** Per model with any: requests in flight and requests queued. */
  models: Map<string, { inFlight: number; queued: number }>;
  /** Per replica with any: requests in flight on it. */
  replicas: Map<string, number>;
};

/** Changes that can make a replica ready, or a model unservable: a queued request may go now. */
const MOVES: ReadonlySet<EventType> = new Set([
  "replica.changed",
  "model.changed",
  "model.removed",
  "node.changed",
]);
/** A request's client, as the queue watches it: gone, or how to hear that it went. */
export type Departing = { readonly gone: boolean; onGone(then: () => void): () => void };

/** One request asking for a slot: what the queue and the choice of replica read of it. */
export type Asking = Pick<Waiter, "arrivedAt" | "sessionKey" | "beginning" | "avoid"> & { client: Departing };

/** Why a waiting request was let go: its client went away (nobody to answer). */
export const CLIENT_WENT_AWAY = new Error("the client went away");

/** A pass over the queues this often while any request waits, for what no event announces. */
const SWEEP_MS = 1_000;

/**
 * Where this process's requests wait and which replica each goes to (SPEC §7.1–7.4). A request
 * takes a slot at once when its model has one free and nobody waits before it; otherwise it joins
 * the model's queue (recording a wake when no replica is ready) and is sent, in arrival order, as
 * slots free up or replicas turn ready (replica.changed events, from any process through the relay).
 */
export class Dispatcher {
  readonly lanes = new Map<string, Lane>();
  #subscribed: (() => void) | null = null;
  /** Which models other processes route too (SPEC §7.1a), asked from the first request on. */
  readonly #peers: Peers;
  #sweep: ReturnType<typeof setInterval> | null = null;
  #pumping: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly deps: Deps,
    private readonly control: GatewayControl,
    /** Read when a request must wait: tests change the configuration between cases. */
    private readonly limits: () => DispatchLimits,
    private readonly meter: GatewayMeter,
    /** Called on every pass for a model with requests waiting: waiting is use, the model is not idle. */
    private readonly inUse: (model: Model) => void,
  ) {
    this.#peers = new Peers(deps.store, deps.origin, (err) =>
      deps.log.error({ err }, "reading which processes route which models failed"),
    );
  }

  /**
   * A slot for one request on a ready replica of `model` (as `snap` has it), once there is one.
   * Refuses with 503 queue_full, wait_timeout, model_stopped or no_capacity; rejects with
   * CLIENT_WENT_AWAY when the client goes away first (it then leaves the queue and is never sent).
   */
  acquire(
    model: Model,
    snap: Snapshot,
    request: Asking,
    /** A retry keeps its place: it goes back to the head of the queue, not the tail. */
    retry = false,
  ): Lease | Promise<Lease> {
    this.#listen();
    const lane = this.#lane(model.name);
    const current = snap.modelsByName.get(model.name) ?? model;
    if (lane.queue.length === 0 || retry) {
      const lease = lane.take(snap, current, request);
      if (lease) return lease;
    }
    return this.#wait(lane, snap, current, request, retry);
  }

  #wait(lane: Lane, snap: Snapshot, model: Model, request: Asking, retry: boolean): Promise<Lease> {
    const limits = this.limits();
    if (lane.queue.length >= limits.maxQueue && !retry) {
      throw unavailable(
        "queue_full",
        `${model.name} has ${counted(lane.queue.length, "request")} waiting, the most it queues`,
      );
    }
    if (request.client.gone) throw CLIENT_WENT_AWAY;
    const lease = new Promise<Lease>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | null = null;
      let stopListening = () => {};
      const done = () => {
        if (timer) clearTimeout(timer);
        stopListening();
      };
      const waiter: Waiter = {
        arrivedAt: request.arrivedAt,
        sessionKey: request.sessionKey,
        beginning: request.beginning,
        avoid: request.avoid,
        grant: (lease) => {
          done();
          // Granted as the client left: the slot goes back at once.
          if (request.client.gone) {
            lease.release();
            reject(CLIENT_WENT_AWAY);
          } else resolve(lease);
        },
        refuse: (err) => {
          done();
          reject(err);
        },
      };
      const left = request.arrivedAt + limits.maxWaitMs - performance.now();
      timer = setTimeout(
        () => {
          lane.leave(waiter);
          waiter.refuse(
            unavailable(
              "wait_timeout",
              `${model.name} had no free replica within ${Math.round(limits.maxWaitMs / 1000)} s`,
            ),
          );
        },
        Math.max(0, left),
      );
      stopListening = request.client.onGone(() => {
        lane.leave(waiter);
        done();
        reject(CLIENT_WENT_AWAY);
      });
      if (retry) lane.queue.unshift(waiter);
      else lane.queue.push(waiter);
    });
    const ready = lane.ready(snap, model);
    lane.noneReady = !ready;
    if (!ready && modeOf(model.scaling) === "ondemand") this.#wake(lane, model);
    this.nudge();
    this.#sweeping();
    return lease;
  }

  /**
   * What this process holds now (SPEC §9.1), for the autoscaler (autoscale/), once a second: per
   * model the requests in flight and queued, per replica the requests in flight on it. Only what
   * is not zero. The autoscaler reads the gateway through this alone.
   */
  demandByModel(): GatewayDemand {
    const demand: GatewayDemand = { models: new Map(), replicas: new Map() };
    for (const lane of this.lanes.values()) {
      let inFlight = 0;
      for (const [replica, n] of lane.inFlight) {
        inFlight += n;
        if (n > 0) demand.replicas.set(replica, n);
      }
      if (inFlight > 0 || lane.queue.length > 0)
        demand.models.set(lane.model, { inFlight, queued: lane.queue.length });
    }
    return demand;
  }

  /** Asks for a pass over every queue soon; passes asked for meanwhile are one. */
  nudge(): void {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pumpAll()
      .catch((err: unknown) => this.deps.log.error({ err }, "the gateway's dispatch failed"))
      .finally(() => {
        this.#pumping = null;
        if (this.#again) {
          this.#again = false;
          this.nudge();
        }
      });
  }

  close(): void {
    this.#peers.stop();
    this.#subscribed?.();
    this.#subscribed = null;
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = null;
    const closing = unavailable("shutting_down", "the server is shutting down", 1);
    for (const lane of this.lanes.values()) for (const w of lane.queue.splice(0)) w.refuse(closing);
  }

  async #pumpAll(): Promise<void> {
    const waiting = [...this.lanes.values()].filter((l) => l.queue.length > 0);
    if (waiting.length === 0) return;
    const snap = await this.deps.world.snapshot();
    for (const lane of waiting) {
      const model = snap.modelsByName.get(lane.model);
      if (model) this.inUse(model);
      const ready = lane.pump(snap);
      if (ready && lane.wokenAt !== null) {
        this.meter.coldStart(lane.model, performance.now() - lane.wokenAt);
        lane.wokenAt = null;
      }
    }
  }

  /**
   * One wake per cold start, recorded by the first waiter: the others share it (SPEC §7.2). Not
   * awaited: the waiter is queued already, and a wake the store refused leaves it to its wait bound.
   */
  #wake(lane: Lane, model: Model): void {
    if (lane.wokenAt !== null && lane.queue.length > 1) return;
    lane.wokenAt = performance.now();
    this.control
      .wake(model, this.deps.now())
      .catch((err: unknown) => this.deps.log.error({ err, model: model.name }, "recording a wake failed"));
  }

  #lane(name: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = new Lane(
        name,
        () => this.nudge(),
        (replica) => this.control.replicaIdle(replica),
        () => this.#peers.sharing(name),
      );
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** Subscribed at the first request, not at construction: building the app touches no hub. */
  #listen(): void {
    if (this.#subscribed) return;
    this.#peers.start();
    this.#subscribed = this.deps.hub.subscribe((event) => {
      if (MOVES.has(event.type)) this.nudge();
    });
  }

  #sweeping(): void {
    if (this.#sweep) return;
    this.#sweep = setInterval(() => {
      if ([...this.lanes.values()].some((l) => l.queue.length > 0)) this.nudge();
      else if (this.#sweep) {
        clearInterval(this.#sweep);
        this.#sweep = null;
      }
    }, SWEEP_MS);
    this.#sweep.unref();
  }
}
