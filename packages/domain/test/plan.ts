import { applySchedule } from "../src/schedule/apply";
import { type ScheduleInput, schedule } from "../src/schedule/schedule";
import type { Model, Node, Quota, Replica } from "../src/schemas";
import { makeClasses } from "./factories";

/** The planners' tests' clock. */
export const PLAN_NOW = Date.UTC(2025, 5, 1);

/**
 * One planner run over the fleet a test builds, the replicas as the agents would then hold them
 * (`next`), and a second run over those (`again`: a settled fleet's changes nothing).
 */
export function planFleet(fleet: {
  models: Model[];
  nodes: Node[];
  replicas?: Replica[];
  quotas?: Quota[];
  wakes?: Map<string, number>;
  now?: number;
}) {
  let n = 0;
  const input: ScheduleInput = {
    models: fleet.models,
    nodes: fleet.nodes,
    replicas: fleet.replicas ?? [],
    classes: makeClasses(),
    quotas: fleet.quotas ?? [],
    wakes: fleet.wakes ?? new Map(),
    now: fleet.now ?? PLAN_NOW,
    newId: (model) => `${model}-new${++n}`,
  };
  const result = schedule(input);
  const next = applySchedule(input.replicas, result);
  return { ...result, next, again: schedule({ ...input, replicas: next }) };
}
