import { capacityByClass, type HeadroomSummary, headroomSummary } from "@llmgw/domain";
import { type Logger, silentLogger } from "@llmgw/log";
import type { Snapshot, World } from "../world";
import type { EventHub } from "./eventHub";

/** At most this often: a card must move within a second of the change that moved it. */
export const HEADROOM_CHANGES_MS = 250;

/**
 * Sends `headroom.changed` to this process's open streams: the headroom of the models whose
 * headroom moved since the last one, and the fleet's totals. A heartbeat moves sums over the
 * whole catalogue; with this a screen updates its cards in place instead of fetching every
 * model's headroom again after each fleet event.
 *
 * Per process and unstored, like `model.traffic`: a stream that (re)connects fetches the lists
 * once and follows from there. Nothing is computed while no stream is open; the picture when the
 * first one opens is the baseline.
 */
export function startHeadroomChanges(options: {
  hub: EventHub;
  world: World;
  intervalMs?: number;
  log?: Logger;
}): () => void {
  const { hub, world, intervalMs = HEADROOM_CHANGES_MS, log = silentLogger() } = options;
  const changes = new HeadroomChanges();
  // The picture when the first stream opened: its client fetches the lists as it opens, so what
  // moves after that moment must be said. Taken at the next tick instead, a heartbeat landing in
  // between would be folded into the baseline and never reach that client's cards.
  let opening: Promise<Snapshot> | null = null;
  const offOpened = hub.onFirstEphemeral(() => {
    changes.forget();
    opening = world.snapshot();
  });
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    if (hub.ephemeralListeners === 0) {
      changes.forget();
      opening = null;
      return;
    }
    busy = true;
    const baseline = opening;
    opening = null;
    (baseline ? baseline.then((snap) => changes.next(snap)) : Promise.resolve(null))
      .then(() => world.snapshot())
      .then((snap) => {
        const event = changes.next(snap);
        if (event) hub.sendEphemeral({ type: "headroom.changed", data: event });
      })
      .catch((err: unknown) => log.error({ err }, "sending headroom.changed failed"))
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    offOpened();
    clearInterval(timer);
  };
}

/** What was last said, model by model, as JSON: a change is any difference in what a list would carry. */
export class HeadroomChanges {
  #snapshot: Snapshot | null = null;
  #said: Map<string, string> | null = null;
  #capacity = "";

  /** Nobody listens: the next listener starts from a fresh baseline. */
  forget(): void {
    this.#snapshot = null;
    this.#said = null;
  }

  /** The event for `snap`, or null when nothing moved (or it is the baseline). */
  next(snap: Snapshot): { models: HeadroomSummary[]; capacity: ReturnType<typeof capacityByClass> } | null {
    if (snap === this.#snapshot) return null;
    this.#snapshot = snap;
    const baseline = this.#said === null;
    const said = this.#said ?? new Map<string, string>();
    const models: HeadroomSummary[] = [];
    const present = new Set<string>();
    for (const model of snap.models) {
      const room = snap.headroom.get(model.name);
      if (!room) continue;
      present.add(model.name);
      const summary = headroomSummary(room);
      const json = JSON.stringify(summary);
      if (said.get(model.name) === json) continue;
      said.set(model.name, json);
      models.push(summary);
    }
    // A removed model is announced by model.removed; it leaves the baseline here.
    for (const name of said.keys()) if (!present.has(name)) said.delete(name);
    this.#said = said;
    const capacity = capacityByClass(snap.index);
    const capacityJson = JSON.stringify(capacity);
    const capacityMoved = capacityJson !== this.#capacity;
    this.#capacity = capacityJson;
    if (baseline || (models.length === 0 && !capacityMoved)) return null;
    return { models, capacity };
  }
}
