import {
  type AutoscaleView,
  type Class,
  type FleetIndex,
  type Headroom,
  type HeadroomSummary,
  headroomAll,
  headroomSummary,
  indexFleet,
  type Model,
  type ModelSummary,
  type Node,
  type Quota,
  type Replica,
} from "@llmgw/domain";
import { Body } from "../body";
import { byId, groupBy } from "./sorted";
import { modelSummary } from "./views";

export type Parts = {
  models: Model[];
  nodes: Node[];
  classes: Class[];
  quotas: Quota[];
  index: FleetIndex;
  replicasByNode: Map<string, Replica[]>;
  /** Replicas placed nowhere (pending). */
  unplaced: Replica[];
  replicasByModel: Map<string, Replica[]>;
  /** The store's list when the snapshot was read whole; rebuilt on demand after a patch. */
  replicas: Replica[] | null;
  /** How each autoscaled model follows its traffic (SPEC §9.5), as this process last worked it out. */
  autoscale: ReadonlyMap<string, AutoscaleView>;
  /** Headroom already worked out for this very fleet and catalogue (a change of autoscale only). */
  headroom?: Map<string, Headroom> | null;
};

export const NO_AUTOSCALE: ReadonlyMap<string, AutoscaleView> = new Map();

/**
 * Everything a read needs, as one consistent picture, and what is derived from it: headroom for
 * every model (computed once, the first time a read asks) and the catalogue's JSON (serialised
 * once, however many clients ask). Immutable: a change makes a new snapshot.
 */
export class Snapshot {
  readonly models: Model[];
  readonly modelsByName: Map<string, Model>;
  readonly nodes: Node[];
  readonly nodesByName: Map<string, Node>;
  readonly replicasByNode: Map<string, Replica[]>;
  /** Every model's replicas, grouped once: a list of 500 cards must not scan the fleet per card. */
  readonly replicasByModel: Map<string, Replica[]>;
  readonly unplaced: Replica[];
  readonly classes: Class[];
  readonly quotas: Quota[];
  readonly index: FleetIndex;
  readonly autoscale: ReadonlyMap<string, AutoscaleView>;
  #replicas: Replica[] | null;
  #headroom: Map<string, Headroom> | null;
  #modelsBody: Body<ModelSummary[]> | null = null;
  #headroomBody: Body<HeadroomSummary[]> | null = null;

  constructor(parts: Parts) {
    this.models = parts.models;
    this.modelsByName = new Map(parts.models.map((m) => [m.name, m]));
    this.nodes = parts.nodes;
    this.nodesByName = new Map(parts.nodes.map((n) => [n.name, n]));
    this.replicasByNode = parts.replicasByNode;
    this.replicasByModel = parts.replicasByModel;
    this.unplaced = parts.unplaced;
    this.classes = parts.classes;
    this.quotas = parts.quotas;
    this.index = parts.index;
    this.autoscale = parts.autoscale;
    this.#replicas = parts.replicas;
    this.#headroom = parts.headroom ?? null;
  }

  static of(
    tables: {
      models: Model[];
      nodes: Node[];
      replicas: Replica[];
      classes: Class[];
      quotas: Quota[];
    },
    autoscale: ReadonlyMap<string, AutoscaleView> = NO_AUTOSCALE,
  ) {
    const { models, nodes, replicas, classes, quotas } = tables;
    return new Snapshot({
      autoscale,
      models,
      nodes,
      classes,
      quotas,
      index: indexFleet({ nodes, replicas, models, classes }),
      replicasByNode: groupBy(
        replicas.filter((r) => r.node !== null),
        (r) => r.node ?? "",
      ),
      unplaced: replicas.filter((r) => r.node === null),
      replicasByModel: groupBy(replicas, (r) => r.model),
      replicas,
    });
  }

  /** The store's list as it was given, without building it (null after a patch). */
  get replicasAsGiven(): Replica[] | null {
    return this.#replicas;
  }

  /** Headroom if already worked out, without working it out. */
  get headroomAsGiven(): Map<string, Headroom> | null {
    return this.#headroom;
  }

  /** Every replica, ordered by id as the store lists them. */
  get replicas(): Replica[] {
    this.#replicas ??= [...this.unplaced, ...[...this.replicasByNode.values()].flat()].sort(byId);
    return this.#replicas;
  }

  /** Every model's headroom (SPEC §2.4), from one index, the first time something asks. */
  get headroom(): Map<string, Headroom> {
    this.#headroom ??= new Map(headroomAll(this.models, this.index, this.quotas).map((h) => [h.model, h]));
    return this.#headroom;
  }

  /**
   * `GET /models`' body: the catalogue as model summaries (no per-node lines, SPEC §2.4's size
   * rule), serialised once however many clients ask.
   */
  get modelsBody(): Body<ModelSummary[]> {
    this.#modelsBody ??= new Body(this.models.map((m) => modelSummary(this, m)));
    return this.#modelsBody;
  }

  /** `GET /headroom`'s body, likewise without per-node lines. */
  get headroomBody(): Body<HeadroomSummary[]> {
    this.#headroomBody ??= new Body(
      this.models.flatMap((m) => {
        const room = this.headroom.get(m.name);
        return room ? [headroomSummary(room)] : [];
      }),
    );
    return this.#headroomBody;
  }
}
