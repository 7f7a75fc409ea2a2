import { Planner } from "./planner";
import type { Schedule, ScheduleInput } from "./types";

export { wantedReplicas } from "./rules";
export type { Eviction, HeldBack, Schedule, ScheduleInput } from "./types";

/**
 * The planner (SPEC §2.6): models in descending class rank (then name), each brought to its
 * wanted count. A missing replica goes on free capacity (binpacking), else where preemption of
 * strictly lower classes is cheapest (`Room.preempt`), else stays pending with its reason; an
 * existing pending replica is placed before a new one is made, and a new one only within the
 * owner's quota (pending replicas count). Extra replicas stop, pending first, then newest.
 * Replicas on draining nodes are replaced elsewhere first and stopped once the replacements are
 * ready. Replicas of models the catalogue does not know are never touched; failed ones hold
 * nothing and are replaced. Pure: the same input gives the same decisions (ids from `newId`).
 */
export function schedule(input: ScheduleInput): Schedule {
  return new Planner(input).run();
}
