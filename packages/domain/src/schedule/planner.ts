import { drainOver } from "../autoscale";
import { compareText } from "../compare";
import { type FleetIndex, type IndexedModel, indexFleet, modelOf } from "../fleetIndex";
import { profileNeed, profilesByPriority, replicaNeed } from "../need";
import { type Placement, placementKey, placementOf } from "../placement";
import { revisionOf } from "../rollout";
import type { Model, Profile, Replica, Resources } from "../schemas";
import { ChangeLog, QuotaLedger, sameNeed } from "./ledger";
import { unplacedReason } from "./reasons";
import { ofOtherRevision, otherFirst, otherKept, wantedOfRevision } from "./revisions";
import { isLive, Room } from "./room";
import { extraFirst, oldestFirst, wantedReplicas } from "./rules";
import type { Eviction, HeldBack, Schedule, ScheduleInput } from "./types";

/** A model's replicas as this run has left them so far. */
interface Sorted {
  /** Pending, on no node. */
  unplaced: Replica[];
  /** Running or nominated on a node that is not draining (or on a node never reported). */
  settled: Replica[];
  /** Running on a draining node. */
  moving: Replica[];
  /** Ready, draining before it stops (SPEC §9.3): no longer counted as one of the model's. */
  draining: Replica[];
  /** Running another revision than the model's (SPEC §11.2): serving until replaced. */
  other: Replica[];
  /** Of another revision and draining or stopping: leaving, its room not free yet. */
  leaving: number;
}

/**
 * One run of the planner (see `schedule`), in two passes over the models, highest class first.
 * The first settles what each model holds: it drops nominations that no longer hold, pending
 * replicas asking for a need the model no longer has, and extras, and starts nominated replicas
 * whose victims are gone. The second places what is missing and moves replicas off draining
 * nodes. Everything that frees room happens in the first pass, so no model finds room on the next
 * run that a later model freed on this one: planning its own output again decides nothing.
 */
export class Planner {
  readonly index: FleetIndex;
  readonly room: Room;
  readonly #at: string;
  readonly #changes = new ChangeLog();
  readonly #heldBack: HeldBack[] = [];
  readonly #placements = new Map<string, Placement>();
  /**
   * Shapes (need, rank, placement) that found no room, with `Room.releases` then: room only
   * shrinks while models are placed, except when a nominated replica gives its place back.
   */
  readonly #nowhere = new Map<string, number>();
  /** Models the first pass left holding exactly what they want. */
  readonly #done = new Set<string>();
  readonly #quota: QuotaLedger;
  /** Replicas left without a node, by model: their reasons are worked out once the run is over. */
  readonly #unplaced = new Map<string, { entry: IndexedModel; replicas: Replica[] }>();

  constructor(readonly input: ScheduleInput) {
    this.index = input.index ?? indexFleet(input);
    this.room = new Room(this.index);
    this.#at = new Date(input.now).toISOString();
    this.#quota = new QuotaLedger(input.quotas, this.index);
  }

  run(): Schedule {
    const byModel = new Map<string, Replica[]>();
    for (const r of this.input.replicas) {
      if (!modelOf(this.index.models, r)) {
        // No agent reports a replica without a node: this one the scheduler made, for a model since removed.
        if (r.node === null) this.#changes.set(r, null);
        continue;
      }
      const list = byModel.get(r.model);
      if (list) list.push(r);
      else byModel.set(r.model, [r]);
    }
    // The models as given, ranked by the index: their scaling may differ from the indexed ones.
    const order = this.input.models
      .map((model): IndexedModel => {
        const indexed = this.index.models.get(model.name);
        if (!indexed) throw new Error(`the index given to schedule does not hold model ${model.name}`);
        return { ...indexed, model };
      })
      .sort((a, b) => b.rank - a.rank || compareText(a.model.name, b.model.name));
    for (const entry of order) this.#settle(entry, byModel.get(entry.model.name) ?? []);
    for (const entry of order) this.#fill(entry, byModel.get(entry.model.name) ?? []);
    // Reasons last: read against the run's final state, they read the same on the next run.
    // Models of one need and placement share a reason: worked out once.
    const reasons = new Map<string, string>();
    for (const { entry, replicas } of this.#unplaced.values()) {
      if (entry.model.profiles.length > 1) {
        const reason = this.#profilesReason(entry.model);
        for (const r of replicas) this.#set(r, { ...r, node: null, state: "pending", reason });
        continue;
      }
      const need = replicaNeed(entry.model);
      const key = `${need.memoryGB},${need.cpuCores},${need.gpus}\u0000${placementKey(entry.model)}`;
      const reason = reasons.get(key) ?? unplacedReason(this.room, this.#placementOf(entry.model), need);
      reasons.set(key, reason);
      for (const r of replicas) this.#set(r, { ...r, node: null, state: "pending", reason });
    }
    return this.#changes.schedule(this.#heldBack);
  }

  /**
   * First pass: what the model holds, made consistent; extras go, pending first, then newest.
   * Draining replicas are taken back first when the model wants more again, else stop once drained.
   */
  #settle(entry: IndexedModel, records: readonly Replica[]): void {
    const all = this.#wanted(entry.model);
    const wanted = wantedOfRevision(entry.model, all);
    const { unplaced, settled, moving, draining, other } = this.#sort(entry, records, true);
    // Drained last, back first: the one most recently told to drain has the warmest engine.
    draining.sort(
      (a, b) => compareText(b.drainingSince ?? "", a.drainingSince ?? "") || compareText(a.id, b.id),
    );
    while (settled.length < wanted && draining.length > 0) {
      const back = draining.shift();
      if (back) settled.push(this.#undrain(back));
    }
    for (const r of draining) this.#stopIfDrained(entry, r);
    const extras =
      settled.length > wanted ? [...settled].sort(extraFirst).slice(0, settled.length - wanted) : [];
    for (const r of extras) this.#retire(entry, r, `more replicas than wanted (${wanted})`);
    const kept = settled.length - extras.length;
    if (unplaced.length > wanted - kept) {
      unplaced.sort(oldestFirst);
      for (const r of unplaced.slice(Math.max(0, wanted - kept))) this.#remove(entry.model, r);
    }
    const retired = new Set(extras);
    for (const r of settled) if (!retired.has(r)) this.#startIfRoom(r);
    // SPEC §11.2: one replica of another revision drained for each of this one's ready.
    const ready = settled.filter((r) => r.state === "ready" && !retired.has(r)).length;
    const keep = otherKept(entry.model, all, ready);
    const replaced = [...other].sort(otherFirst).slice(0, Math.max(0, other.length - keep));
    for (const r of replaced) this.#drainOrStop(entry, r, `replaced by revision ${revisionOf(entry.model)}`);
    // Most models hold what they want: the second pass skips them unless a higher class evicts one.
    if (kept === wanted && moving.length === 0 && other.length === 0) this.#done.add(entry.model.name);
  }

  /** Second pass: places what is missing, then moves replicas off draining nodes. */
  #fill(entry: IndexedModel, records: readonly Replica[]): void {
    const { model } = entry;
    if (this.#done.has(model.name)) return;
    const need = replicaNeed(model);
    const wanted = wantedOfRevision(model, this.#wanted(model));
    const placement = this.#placementOf(model);
    const { unplaced, settled, moving, other, leaving } = this.#sort(entry, records, false);
    unplaced.sort(oldestFirst);
    const known = need.memoryGB > 0 || need.cpuCores > 0 || need.gpus > 0;
    const shape = `${need.memoryGB},${need.cpuCores},${need.gpus},${entry.rankSlot}\u0000${placementKey(model)}`;
    // A model of the same need, class and placement found no room, and no room has been freed since.
    let full = !known || this.#nowhere.get(shape) === this.room.releases;
    const missing = wanted - settled.length;
    let drainedForRoom = false;
    // A model of several profiles is placed by priority (§2.6); surge-then-drain for want of room
    // (§11.2) runs on the one-profile path below.
    if (model.profiles.length > 1) this.#fillByPriority(entry, unplaced, missing);
    for (let i = 0; model.profiles.length === 1 && i < missing; i++) {
      let record = unplaced[i];
      if (!record) {
        const refusal = this.#quota.refuses(model.owner, need);
        if (refusal) {
          this.#heldBack.push({ model: model.name, replicas: missing - i, reason: refusal });
          break;
        }
        record = this.#create(model, need, model.profiles[0]?.name ?? "");
      }
      // Once one replica fits nowhere, the next fits nowhere either: the search is skipped.
      if (!full && !this.#place(entry, record, need, placement)) {
        full = true;
        this.#nowhere.set(shape, this.room.releases);
      }
      if (full) {
        this.#leaveUnplaced(entry, record);
        // SPEC §11.2: not even one more fits: one old replica goes first, then is replaced; one
        // at a time, so never fewer than wanted − 1 serve.
        const inTransit = settled.some((r) => r.state !== "ready");
        const serving = other.filter((r) => r.drainingSince === undefined);
        const first = [...serving].sort(otherFirst)[0];
        if (first && leaving === 0 && !inTransit && !drainedForRoom) {
          drainedForRoom = true;
          this.#drainOrStop(entry, first, `replaced by revision ${revisionOf(model)}, for want of room`);
        }
      }
    }
    // Replace first, then stop: the replicas on a draining node serve until enough ready ones run elsewhere.
    const ready = settled.filter((r) => r.state === "ready").length;
    if (moving.length > 0 && ready >= wanted)
      for (const r of moving)
        this.#drainOrStop(entry, r, `moved off ${r.node ?? "its node"}, which is draining`);
  }

  /**
   * The model's replicas by where they stand. With `tidy`, a nominated replica whose node can no
   * longer take it loses its place, and a pending one asking for a need the model no longer has
   * is dropped (a new one is made within the quota).
   */
  #sort(entry: IndexedModel, records: readonly Replica[], tidy: boolean): Sorted {
    const { index, room } = this;
    const need = replicaNeed(entry.model);
    const modelPlacement = this.#placementOf(entry.model);
    const sorted: Sorted = { unplaced: [], settled: [], moving: [], draining: [], other: [], leaving: 0 };
    for (const stored of records) {
      // As this run has left it: a higher class may have evicted it by now.
      const r = this.#current(stored);
      if (r === null || r.state === "failed") continue;
      const other = ofOtherRevision(entry.model, r);
      if (r.state === "stopping") {
        if (other) sorted.leaving += 1;
        continue;
      }
      const slot = r.node === null ? undefined : index.nodeSlots.get(r.node);
      if (other) {
        // A replica of another revision not running yet is of no use: it goes (SPEC §11.2).
        if (r.state === "pending") {
          if (!tidy) continue;
          if (slot !== undefined) room.release(slot, r, entry.rankSlot);
          this.#remove(entry.model, r);
        } else if (r.drainingSince !== undefined) {
          sorted.leaving += 1;
          if (tidy) this.#stopIfDrained(entry, r);
        } else sorted.other.push(r);
        continue;
      }
      // A model of several profiles: each replica is held to the profile it was placed with.
      const own = entry.model.profiles.length > 1 ? this.#profileOf(entry.model, r) : undefined;
      const placement = own ? this.#placementOf(entry.model, own) : modelPlacement;
      const dropped = entry.model.profiles.length > 1 && own === undefined;
      if (r.state === "pending" && tidy && (dropped || !sameNeed(r, own ? profileNeed(own) : need))) {
        if (slot !== undefined) room.release(slot, r, entry.rankSlot);
        this.#remove(entry.model, r);
      } else if (r.node === null) sorted.unplaced.push(r);
      // On a node that never reported: nothing to go by, so it is left as it is.
      else if (slot === undefined) sorted.settled.push(r);
      else if (r.state === "pending") {
        if (!tidy || (placement.blocked[slot] !== 1 && room.fitsOnceStopped(slot, r))) {
          // A nomination says what it waits for; one stored without a reason is given one.
          if (tidy && !r.reason) {
            const said: Replica = {
              ...r,
              reason: `waits on ${r.node} for the replicas stopping there to leave`,
            };
            this.#set(r, said);
            sorted.settled.push(said);
          } else sorted.settled.push(r);
          continue;
        }
        room.release(slot, r, entry.rankSlot);
        const back: Replica = { ...r, node: null };
        this.#set(r, back);
        sorted.unplaced.push(back);
      } else if (r.drainingSince !== undefined) sorted.draining.push(r);
      else if (index.nodes[slot]?.node.state === "draining") sorted.moving.push(r);
      else sorted.settled.push(r);
    }
    return sorted;
  }

  /** Places one replica on free capacity, else by preemption; false when neither has room. */
  #place(entry: IndexedModel, record: Replica, need: Resources, placement: Placement): boolean {
    const slot = this.room.bestFree(need, placement.blocked);
    if (slot >= 0) {
      this.room.hold(slot, need, false);
      const node = this.#nodeName(slot);
      this.#set(record, { ...record, node, state: "starting", startedAt: this.#at, reason: null });
      return true;
    }
    const preemption = this.room.preempt(need, entry.rankSlot, placement.blocked);
    if (!preemption) return false;
    const node = this.#nodeName(preemption.slot);
    const { victims } = preemption;
    const by = `${entry.model.name} (${entry.model.class})`;
    for (const victim of victims) {
      const r = victim.replica;
      this.#done.delete(r.model);
      const eviction = {
        className: victim.className,
        preemptor: { model: entry.model.name, replica: record.id, className: entry.model.class },
      };
      if (r.state === "pending") {
        this.room.release(preemption.slot, r, victim.rankSlot);
        this.#set(r, { ...r, node: null, reason: `lost its place on ${node} to ${by}` }, eviction);
      } else {
        this.room.stop(preemption.slot, r, victim.rankSlot);
        this.#set(
          r,
          { ...r, state: "stopping", reason: `preempted by ${by}, which needs its room on ${node}` },
          eviction,
        );
      }
    }
    this.room.hold(preemption.slot, need, true);
    // Room reserved for another nominated replica may be free now: then it starts at once.
    if (this.room.fitsRunning(preemption.slot, need)) {
      this.room.promote(preemption.slot, need);
      this.#set(record, { ...record, node, state: "starting", startedAt: this.#at, reason: null });
      return true;
    }
    const waits =
      victims.length > 0
        ? `waits on ${node} for ${victims.length} preempted replica${victims.length === 1 ? "" : "s"} to stop`
        : `waits on ${node} for the replicas stopping there to leave`;
    this.#set(record, { ...record, node, state: "pending", startedAt: this.#at, reason: waits });
    return true;
  }

  /** A nominated replica whose node now has room beside what runs there starts. */
  #startIfRoom(r: Replica): void {
    const slot = r.node === null || r.state !== "pending" ? undefined : this.index.nodeSlots.get(r.node);
    if (slot === undefined || !this.room.fitsRunning(slot, r)) return;
    this.room.promote(slot, r);
    this.#set(r, { ...r, state: "starting", startedAt: this.#at, reason: null });
  }

  /** An extra replica: a nominated one is dropped (it runs nowhere), a running one drains or stops. */
  #retire(entry: IndexedModel, r: Replica, reason: string): void {
    const slot = r.node === null ? undefined : this.index.nodeSlots.get(r.node);
    if (r.state === "pending") {
      if (slot !== undefined) this.room.release(slot, r, entry.rankSlot);
      this.#remove(entry.model, r);
    } else this.#drainOrStop(entry, r, reason);
  }

  /**
   * A replica leaving that may have requests on it (SPEC §9.3): a ready one with an endpoint
   * drains (still ready, sent nothing new, stopped once its requests have ended); any other stops.
   */
  #drainOrStop(entry: IndexedModel, r: Replica, reason: string): void {
    if (!this.input.drain || r.state !== "ready" || r.endpoint === null) {
      this.#stop(entry, r, reason);
      return;
    }
    const draining: Replica = { ...r, drainingSince: this.#at, reason: `draining: ${reason}` };
    this.#set(r, draining);
    this.#stopIfDrained(entry, draining);
  }

  #stopIfDrained(entry: IndexedModel, r: Replica): void {
    const { drain } = this.input;
    const since = Date.parse(r.drainingSince ?? "");
    const over =
      !drain ||
      !Number.isFinite(since) ||
      drainOver({
        since,
        now: this.input.now,
        inFlight: drain.inFlight.get(r.id) ?? 0,
        boundMs: drain.boundMs,
        ...(drain.settleMs !== undefined ? { settleMs: drain.settleMs } : {}),
      });
    if (!over) return;
    const left = r.reason?.replace(/^draining: /, "") ?? "more replicas than wanted";
    this.#stop(entry, r, `${left}; drained`);
  }

  /** A draining replica wanted again: it serves as before. */
  #undrain(r: Replica): Replica {
    const { drainingSince: _since, ...rest } = r;
    const back: Replica = { ...rest, reason: null };
    this.#set(r, back);
    return back;
  }

  #stop(entry: IndexedModel, r: Replica, reason: string): void {
    const slot = r.node === null ? undefined : this.index.nodeSlots.get(r.node);
    if (slot !== undefined) this.room.stop(slot, r, isLive(r) ? entry.rankSlot : undefined);
    this.#set(r, { ...r, state: "stopping", reason });
  }

  #remove(model: Model, r: Replica): void {
    this.#quota.charge(model.owner, r, -1);
    this.#set(r, null);
  }

  #create(model: Model, need: Resources, profile: string): Replica {
    this.#quota.charge(model.owner, need, 1);
    const record: Replica = {
      id: this.input.newId(model.name),
      model: model.name,
      profile,
      node: null,
      state: "pending",
      ...need,
      measuredMemoryGB: null,
      startedAt: this.#at,
      reason: null,
      endpoint: null,
      progress: null,
      // SPEC §11.1: a new replica runs the model's current revision.
      revision: revisionOf(model),
    };
    this.#changes.add(record);
    return record;
  }

  /**
   * Places the missing replicas of a model of several profiles (SPEC §2.6): each tries the
   * profiles from the highest priority down, free capacity then preemption per profile, within
   * the owner's quota charged at that profile's need. One left without a node waits for the
   * first profile its quota admits.
   */
  #fillByPriority(entry: IndexedModel, unplaced: readonly Replica[], missing: number): void {
    const { model } = entry;
    const profiles = profilesByPriority(model);
    for (let i = 0; i < missing; i++) {
      let record: Replica | null = unplaced[i] ?? null;
      let first: Profile | null = null;
      let refusal: string | null = null;
      let placed = false;
      for (const profile of profiles) {
        const need = profileNeed(profile);
        const refused = this.#refuses(model.owner, record, need);
        if (refused) {
          refusal ??= refused;
          continue;
        }
        first ??= profile;
        if (need.memoryGB <= 0 && need.cpuCores <= 0 && need.gpus <= 0) continue;
        const shape = `${need.memoryGB},${need.cpuCores},${need.gpus},${entry.rankSlot}\u0000${placementKey(model, profile)}`;
        if (this.#nowhere.get(shape) === this.room.releases) continue;
        record = record ? this.#retarget(model, record, profile) : this.#create(model, need, profile.name);
        if (this.#place(entry, record, need, this.#placementOf(model, profile))) {
          placed = true;
          break;
        }
        this.#nowhere.set(shape, this.room.releases);
      }
      if (placed) continue;
      if (first === null) {
        if (record) this.#leaveUnplaced(entry, record);
        else {
          this.#heldBack.push({ model: model.name, replicas: missing - i, reason: refusal ?? "" });
          break;
        }
        continue;
      }
      record = record
        ? this.#retarget(model, record, first)
        : this.#create(model, profileNeed(first), first.name);
      this.#leaveUnplaced(entry, record);
    }
  }

  /** Why the owner may not swap `record`'s charge (none when null) for one replica of `need`. */
  #refuses(owner: string, record: Replica | null, need: Resources): string | null {
    if (record) this.#quota.charge(owner, record, -1);
    const refused = this.#quota.refuses(owner, need);
    if (record) this.#quota.charge(owner, record, 1);
    return refused;
  }

  /** A replica not yet on a node, made to run with `profile`: its need and quota charge follow. */
  #retarget(model: Model, record: Replica, profile: Profile): Replica {
    if (record.profile === profile.name && sameNeed(record, profileNeed(profile))) return record;
    this.#quota.charge(model.owner, record, -1);
    const need = profileNeed(profile);
    this.#quota.charge(model.owner, need, 1);
    const after: Replica = { ...record, profile: profile.name, ...need };
    this.#set(record, after);
    return after;
  }

  /** The profile a replica of a model runs with, by name; undefined once the model dropped it. */
  #profileOf(model: Model, r: Replica): Profile | undefined {
    return model.profiles.find((p) => p.name === r.profile);
  }

  /** Why a model of several profiles has a replica on no node: each profile tried, in order. */
  #profilesReason(model: Model): string {
    const tried = profilesByPriority(model).map(
      (p) => `profile ${p.name}: ${unplacedReason(this.room, this.#placementOf(model, p), profileNeed(p))}`,
    );
    return `no profile has room (${tried.join("; ")})`;
  }

  #wanted(model: Model): number {
    const { wakes, now, autoscaled } = this.input;
    return wantedReplicas(model, wakes.get(model.name), now, autoscaled?.get(model.name));
  }

  #leaveUnplaced(entry: IndexedModel, r: Replica): void {
    const list = this.#unplaced.get(entry.model.name);
    if (list) list.replicas.push(r);
    else this.#unplaced.set(entry.model.name, { entry, replicas: [r] });
  }

  #placementOf(model: Model, profile?: Profile): Placement {
    const key = placementKey(model, profile);
    let placement = this.#placements.get(key);
    if (!placement) {
      placement = placementOf(this.index, model, profile);
      this.#placements.set(key, placement);
    }
    return placement;
  }

  #nodeName(slot: number): string {
    const record = this.index.nodes[slot];
    if (!record) throw new Error(`no node at slot ${slot}`);
    return record.node.name;
  }

  #current(r: Replica): Replica | null {
    return this.#changes.current(r);
  }

  #set(before: Replica, after: Replica | null, eviction?: Omit<Eviction, "replica">): void {
    this.#changes.set(before, after, eviction);
  }
}
