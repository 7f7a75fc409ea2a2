import type { AutoscaleView, Node, NodeView } from "@llmgw/domain";
import { nodeView } from "@llmgw/domain";
import type { Store } from "@llmgw/store";
import { withAutoscale } from "./patches";
import { NO_AUTOSCALE, Snapshot } from "./snapshot";

// The world: one consistent picture of the catalogue, fleet and quotas (snapshot.ts), moved
// forward by the changes this process commits (patches.ts); what the API shows of a model
// from it is views.ts.
export { withModel, withNode, withNodes, withoutModel, withReplicas } from "./patches";
export { Snapshot } from "./snapshot";
export { modelSummary, modelView } from "./views";

/**
 * The catalogue, fleet and quotas as one consistent picture. Reads share one snapshot; every
 * write through this process invalidates it (or, for a heartbeat, patches it), so a client reads
 * its own writes, and so does every event another process sharing the database announces
 * (events/relay.ts).
 */
export class World {
  #current: Promise<Snapshot> | null = null;
  /** The snapshot `#current` resolved to, while it is still current. */
  #settled: Snapshot | null = null;
  /** Moves on every invalidation: a patch computed against an older picture is not applied. */
  #generation = 0;
  /** Live facts an agent reports every few seconds, kept in memory rather than written each time. */
  readonly lastSeen = new Map<string, string>();
  /** How many times the store has been read whole (a figure for tests and /metrics). */
  loads = 0;
  /** The autoscaler's latest numbers: every picture from now on carries them (`setAutoscale`). */
  #autoscale: ReadonlyMap<string, AutoscaleView> = NO_AUTOSCALE;

  constructor(private readonly store: Store) {}

  snapshot(): Promise<Snapshot> {
    if (this.#current) return this.#current;
    const generation = this.#generation;
    const loading = this.#load();
    this.#current = loading;
    loading.then(
      (snap) => {
        if (this.#current === loading && this.#generation === generation) this.#settled = snap;
      },
      () => {
        if (this.#current === loading) this.#current = null;
      },
    );
    return loading;
  }

  invalidate(): void {
    this.#generation++;
    this.#current = null;
    this.#settled = null;
  }

  /** Where the picture is now: a change committed after this can patch it if nothing else came between. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Moves the picture forward by a change just committed, instead of reading the store again:
   * only when no other write has invalidated it since `generation` (taken before the change
   * began) and it is loaded; otherwise, or when `change` gives null, the next read loads the store.
   * `commit` (services/commit.ts) calls it with the change's patch (world/patches.ts).
   */
  patch(generation: number, change: (snap: Snapshot) => Snapshot | null): void {
    const current = this.#settled;
    const next = current && generation === this.#generation ? change(current) : null;
    if (!next) {
      this.invalidate();
      return;
    }
    this.#settled = next;
    this.#current = Promise.resolve(next);
  }

  /**
   * The autoscaler's numbers of this second (SPEC §9.5), into the current picture (`withAutoscale`)
   * and every one read after: not a change of the store, so whatever generation the picture is of,
   * nothing is invalidated or read again.
   */
  setAutoscale(autoscale: ReadonlyMap<string, AutoscaleView>): void {
    this.#autoscale = autoscale;
    const current = this.#settled;
    if (!current) return;
    this.#settled = withAutoscale(current, autoscale);
    this.#current = Promise.resolve(this.#settled);
  }

  get autoscale(): ReadonlyMap<string, AutoscaleView> {
    return this.#autoscale;
  }

  /** The five tables read in one read-only transaction, so the picture is of one moment. */
  async #load(): Promise<Snapshot> {
    this.loads++;
    const tables = await this.store.read(async (tx) => ({
      models: await tx.models.list(),
      nodes: await tx.nodes.list(),
      replicas: await tx.replicas.list(),
      classes: await tx.classes.list(),
      quotas: await tx.quotas.list(),
    }));
    return Snapshot.of(tables, this.#autoscale);
  }

  /** A node with the freshest lastSeen, which heartbeats keep in memory. */
  live(node: Node): Node {
    const seen = this.lastSeen.get(node.name);
    return seen && seen > node.lastSeen ? { ...node, lastSeen: seen } : node;
  }

  /** A node as the fleet lists it (the domain's `nodeView`), with its freshest lastSeen. */
  nodeView(snap: Snapshot, node: Node): NodeView {
    return nodeView(snap.index, this.live(node));
  }
}
