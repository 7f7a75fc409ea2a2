import { z } from "zod";
import { withinFloorAndMax } from "./bounds";
import { counted } from "./counted";
import type { Model, Scaling } from "./schemas/catalogue";
import { slotsOf } from "./slots";

// Capacity follows traffic (SPEC §9): how many replicas a model's demand asks for, and how that
// number is held for a window so that it rises at once and falls only after the window.

/** How long wanted holds its highest desired (SPEC §9.3, `autoscale.scaleDownSeconds`). */
export const DEFAULT_SCALE_DOWN_SECONDS = 300;
/** Each process records its demand this often (SPEC §9.1). */
export const DEMAND_RECORD_MS = 1_000;
/** A process that has not recorded for this long counts as 0 (SPEC §9.1). */
export const DEMAND_STALE_MS = 3_000;
/**
 * A draining replica stops once no process has a request on it, judged only on what was recorded
 * this long after it began draining: every process has then heard that it drains (events reach
 * the others within a second) and recorded what it still sends it (once a second), and the
 * leader has read that (once a second).
 */
export const DRAIN_SETTLE_MS = 3_000;
/**
 * The same where the store is one process's by construction (PGlite, SPEC §4): its requests are
 * counted the moment they are sent, and its gateway sends none to a replica once the picture
 * has it draining. This long covers a request that read the picture just before.
 */
export const LOCAL_DRAIN_SETTLE_MS = 200;
/** A draining replica stops after this long even with requests on it (`autoscale.drainSeconds`). */
export const DEFAULT_DRAIN_SECONDS = 300;

const count = z.int().min(0);

/** What `GET /models` shows of an autoscaled model (SPEC §9.5). */
export const autoscaleViewSchema = z.object({
  /** Requests in flight plus queued for the model, summed over every process. */
  demand: count,
  /** Requests a replica should hold: `scaling.targetInFlight`, else the replica's slots. */
  target: z.int().min(1),
  /** What the demand asks for now: ceil(demand / target) within [floor, max]. */
  desired: count,
  /** The highest desired of the window: the replicas the scheduler keeps. */
  wanted: count,
  /** When wanted may next fall (ISO time); null while nothing higher than desired is held. */
  holdUntil: z.string().nullable(),
  /** How many replicas the owner's quota lets the model run, when that is fewer than wanted. */
  quotaAllows: count.nullable(),
});
export type AutoscaleView = z.infer<typeof autoscaleViewSchema>;

/**
 * Whether a model's replicas follow its traffic (SPEC §2.1): `max` above its floor, the floor of
 * an on-demand model being the one replica it runs once awake.
 */
export function isAutoscaled(scaling: Pick<Scaling, "min" | "max">): boolean {
  return scaling.max > Math.max(scaling.min, 1);
}

/** The fewest replicas it runs (SPEC §9.2): `min`; for on demand 1 while awake, 0 once idle. */
export function autoscaleFloor(scaling: Pick<Scaling, "min" | "max">, awake: boolean): number {
  if (scaling.min > 0) return scaling.min;
  return awake && scaling.max > 0 ? 1 : 0;
}

/**
 * Requests one replica should hold (SPEC §9.2): `targetInFlight`, else its slots (SPEC §7.1) —
 * for a replica yet to be placed, those of the profile placement tries first (§2.6: the highest
 * `priority`), which is the only profile of most models.
 */
export function autoscaleTarget(model: Pick<Model, "scaling" | "profiles">): number {
  const target = model.scaling.targetInFlight ?? null;
  if (target !== null && target >= 1) return target;
  // The first of the highest priority, as profilesByPriority orders them (need.ts: not imported,
  // it reads the schemas, which read this file).
  const first = model.profiles.reduce<(typeof model.profiles)[number] | undefined>(
    (best, p) => (best === undefined || p.priority > best.priority ? p : best),
    undefined,
  );
  return slotsOf(model, { profile: first?.name ?? "" });
}

/**
 * Desired for a model whose replicas may differ in slots (SPEC §9.2 with §2.6's profiles): with
 * `targetInFlight` set every replica holds that many, so `ceil(demand / target)`; else each replica
 * holds its own profile's slots. The replicas it runs count first, in the order they are kept
 * (`held`, oldest first, since extra replicas stop newest first), then as many more as the demand
 * still asks for, each counted at `target` (a new replica's slots). So a GPU replica of 16 slots
 * beside CPU ones of 4 counts as 16, not as the first profile's number.
 */
export function desiredForReplicas(
  demand: number,
  held: readonly number[],
  target: number,
  floor: number,
  max: number,
): number {
  let covered = 0;
  let replicas = 0;
  while (covered < demand && replicas < max) {
    covered += held[replicas] ?? Math.max(1, target);
    replicas++;
  }
  return withinFloorAndMax(demand > 0 ? replicas : 0, floor, max);
}

/**
 * An autoscaled model's line before the autoscaler has worked one out (just made autoscaled, or a
 * process without its gateway): no demand, its floor wanted.
 */
export function quietAutoscale(model: Pick<Model, "scaling" | "profiles">): AutoscaleView {
  const floor = autoscaleFloor(model.scaling, false);
  return {
    demand: 0,
    target: autoscaleTarget(model),
    desired: floor,
    wanted: floor,
    holdUntil: null,
    quotaAllows: null,
  };
}

/** `ceil(demand / target)` within `[floor, max]` (SPEC §9.2). */
export function desiredForDemand(demand: number, target: number, floor: number, max: number): number {
  const asked = demand > 0 ? Math.ceil(demand / Math.max(1, target)) : 0;
  return withinFloorAndMax(asked, floor, max);
}

/** One second's desired, at `at` (ms since the epoch). */
export interface DesiredSample {
  at: number;
  desired: number;
}

/**
 * The window of SPEC §9.3 as a monotonic queue: the samples that can still be the highest of the
 * window, highest (and oldest) first. A sample goes once a later one is at least as high, so the
 * queue stays short (a few entries) whatever the window's length, and its head is the highest
 * desired of the window, at the latest time it was asked for.
 */
export type ScaleWindow = readonly DesiredSample[];

export interface ScaleStep {
  window: ScaleWindow;
  wanted: number;
  /** When wanted may next fall (ms since the epoch): null while wanted is what demand asks now. */
  holdUntil: number | null;
}

/**
 * One step of the rule (SPEC §9.3): `desired` joins the window, samples older than `windowMs`
 * leave it, and wanted is the highest that remains, within [floor, max]. So wanted rises in the
 * same step as the demand that asks for it and falls only once nothing higher is in the window.
 * A model at floor 0 (an on-demand model gone idle) wants nothing and forgets its window.
 */
export function scaleStep(
  window: ScaleWindow,
  input: { at: number; desired: number; floor: number; max: number; windowMs: number },
): ScaleStep {
  const { at, floor, max, windowMs } = input;
  if (floor === 0 && input.desired === 0) return { window: [], wanted: 0, holdUntil: null };
  const desired = withinFloorAndMax(input.desired, floor, max);
  const kept = window.filter((s) => at - s.at < windowMs && s.desired > desired);
  const next = [...kept, { at, desired }];
  const head = next[0] ?? { at, desired };
  const wanted = withinFloorAndMax(head.desired, floor, max);
  return { window: next, wanted, holdUntil: wanted > desired ? head.at + windowMs : null };
}

/**
 * A window as a new leader starts it from what the last one stored (SPEC §4: a change of leader
 * must not drop replicas early): wanted held until `holdUntil`, or asked for now.
 */
export function resumeWindow(
  wanted: number,
  holdUntil: number | null,
  now: number,
  windowMs: number,
): ScaleWindow {
  return [{ at: holdUntil === null ? now : holdUntil - windowMs, desired: wanted }];
}

/**
 * Why wanted moved, in numbers (SPEC §9.5), e.g. `14 requests in flight or queued, 4 per replica:
 * 4 wanted (max 4)` or `demand at most 4 for 300 s: 1 wanted (min 1)`.
 */
export function scaleReason(input: {
  from: number;
  to: number;
  demand: number;
  target: number;
  floor: number;
  max: number;
  windowSeconds: number;
}): string {
  const { from, to, demand, target, floor, max, windowSeconds } = input;
  const bounds = `(min ${floor}, max ${max})`;
  if (to > from) {
    if (to > floor) {
      return `${counted(demand, "request")} in flight or queued, ${target} per replica: ${to} wanted (max ${max})`;
    }
    return `the floor is ${floor}: ${to} wanted ${bounds}`;
  }
  if (to === max && from > max) return `max lowered to ${max}: ${to} wanted`;
  if (to === 0) return "idle: 0 wanted";
  return `demand at most ${to * target} for ${windowSeconds} s: ${to} wanted ${bounds}`;
}

const scaledAfterSchema = z.object({ wanted: count, demand: count, reason: z.string() });

/**
 * What the audit keeps of a change of wanted (SPEC §9.5, action `scaled`, by `autoscaler`):
 * before `{ wanted }`, after `{ wanted, demand, reason }`.
 */
export function scaledAudit(change: { from: number; to: number; demand: number; reason: string }): {
  before: { wanted: number };
  after: z.infer<typeof scaledAfterSchema>;
} {
  return {
    before: { wanted: change.from },
    after: { wanted: change.to, demand: change.demand, reason: change.reason },
  };
}

/** A `scaled` entry's after, as an operator reads it: "4: 16 requests in flight or queued, …". */
export function scaledAfterText(after: unknown): string | null {
  const parsed = scaledAfterSchema.safeParse(after);
  return parsed.success ? `${parsed.data.wanted}: ${parsed.data.reason}` : null;
}

/** A `scaled` entry's before: the wanted it had. */
export function scaledBeforeText(before: unknown): string | null {
  const parsed = scaledAfterSchema.pick({ wanted: true }).safeParse(before);
  return parsed.success ? String(parsed.data.wanted) : null;
}

/** One process's recorded demand (SPEC §9.1): when, and per model requests in flight plus queued. */
export interface DemandRecord {
  at: number;
  models: Readonly<Record<string, number>>;
  /** Per replica, requests in flight on it from that process. */
  replicas: Readonly<Record<string, number>>;
  /**
   * SPEC §11.4: per running rollout and revision (`revisionCountKey`), requests that process sent
   * and saw fail since the rollout began. Absent: none.
   */
  revisions?: Readonly<Record<string, { sent: number; failed: number }>>;
}

/** The key of a rollout's counts for one revision in a `DemandRecord`. */
export const revisionCountKey = (model: string, to: number, revision: number): string =>
  `${model}\t${to}\t${revision}`;

/**
 * Demand summed over every process's record (SPEC §9.1); a record older than `DEMAND_STALE_MS`
 * (a process that has stopped recording) counts 0.
 */
export function sumDemand(
  records: Iterable<DemandRecord>,
  now: number,
): { models: Map<string, number>; replicas: Map<string, number> } {
  const models = new Map<string, number>();
  const replicas = new Map<string, number>();
  for (const record of records) {
    if (now - record.at > DEMAND_STALE_MS) continue;
    for (const [name, n] of Object.entries(record.models)) models.set(name, (models.get(name) ?? 0) + n);
    for (const [id, n] of Object.entries(record.replicas)) replicas.set(id, (replicas.get(id) ?? 0) + n);
  }
  return { models, replicas };
}

/**
 * Whether a draining replica may stop now (SPEC §9.3): no process has a request on it, judged on
 * records made at least `DRAIN_SETTLE_MS` after it began draining; or it has drained for
 * `boundMs`, requests or not (an answer that never ends must not hold a replica for ever).
 */
export function drainOver(input: {
  since: number;
  now: number;
  /** Requests on it, summed over every process, as last read. */
  inFlight: number;
  boundMs: number;
  /** `DRAIN_SETTLE_MS`, or `LOCAL_DRAIN_SETTLE_MS` where no other process sends requests. */
  settleMs?: number;
}): boolean {
  const { since, now, inFlight, boundMs, settleMs = DRAIN_SETTLE_MS } = input;
  if (now - since >= boundMs) return true;
  return inFlight === 0 && now - since >= settleMs;
}
