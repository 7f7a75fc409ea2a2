import { compareText } from "./compare";
import { DIMENSIONS, type FleetIndex } from "./fleetIndex";
import { defaultProfile } from "./need";
import { type Model, type Profile, type Resources, WHY_NOT_CAUSES, type WhyNotCause } from "./schemas";

/** Which nodes can hold a model at all, whatever is free on them. */
export interface Placement {
  /** Per node slot: 1 when it can hold none. */
  blocked: Uint8Array;
  /** Per node slot: why it can hold none, or null. */
  reasons: (string | null)[];
  /** Per node slot: the lasting cause's position in `WHY_NOT_CAUSES` + 1, or 0 when not blocked. */
  causes: Uint8Array;
  /** Per cause code: how many nodes it blocks, and the first of them (-1 for none). */
  tally: { counts: Int32Array; first: Int32Array };
}

/** A cause's code in `Placement.causes` and the counts `whyNot` is made from. */
export const causeCode = (cause: WhyNotCause): number => WHY_NOT_CAUSES.indexOf(cause) + 1;

/**
 * Which nodes a model's profile (its default one unless given) may use (SPEC §2.4): ready, matching its nodeSelector,
 * having its engine (or reporting no engines: older agents are not empty ones), and reporting
 * memory and cores. Reasons that would still hold once the node is back come first: a down node
 * that lacks the label is told so.
 */
export function placementOf(
  index: FleetIndex,
  model: Model,
  profile: Profile | undefined = defaultProfile(model),
): Placement {
  const engine = profile?.engine ?? "";
  const selector = Object.entries(profile?.nodeSelector ?? {});
  const noEngine = `has no ${engine} engine`;
  const mismatch = selector.map(([key, value]) => `does not match nodeSelector ${key}=${value}`);
  const blocked = new Uint8Array(index.nodes.length);
  const causes = new Uint8Array(index.nodes.length);
  const tally = {
    counts: new Int32Array(WHY_NOT_CAUSES.length + 1),
    first: new Int32Array(WHY_NOT_CAUSES.length + 1).fill(-1),
  };
  const reasons = index.nodes.map(({ node }, slot) => {
    let reason: string | null = null;
    let cause: WhyNotCause | null = null;
    const missing = selector.findIndex(
      ([key, value]) => !Object.hasOwn(node.labels, key) || node.labels[key] !== value,
    );
    if (missing >= 0) [reason, cause] = [mismatch[missing] ?? null, "selector"];
    else if (node.engines.length > 0 && !node.engines.includes(engine))
      [reason, cause] = [noEngine, "engine"];
    else if (node.memoryGB <= 0) [reason, cause] = ["reports no memory", "no memory reported"];
    else if (node.cpuCount <= 0) [reason, cause] = ["reports no cores", "no cores reported"];
    else if (node.state !== "ready") [reason, cause] = [`not ready (${node.state})`, "not ready"];
    if (cause !== null) {
      const code = causeCode(cause);
      blocked[slot] = 1;
      causes[slot] = code;
      tally.counts[code] = (tally.counts[code] ?? 0) + 1;
      if (tally.first[code] === -1) tally.first[code] = slot;
    }
    return reason;
  });
  return { blocked, reasons, causes, tally };
}

/** A key equal for models that may use the same nodes. */
export function placementKey(model: Model, profile: Profile | undefined = defaultProfile(model)): string {
  const selector = Object.entries(profile?.nodeSelector ?? {}).sort(([a], [b]) => compareText(a, b));
  return `${profile?.engine ?? ""}\u0000${JSON.stringify(selector)}`;
}

export const UNKNOWN_NEED = "the model's need is unknown (set its memory and cores)";

/** The dimension `shortOf` names first for an eligible node that holds none on free capacity. */
export function shortCause(index: FleetIndex, slot: number, need: Resources): WhyNotCause {
  const at = slot * DIMENSIONS;
  if (need.memoryGB > 0 && (index.free[at] ?? 0) < need.memoryGB) return "short of memory";
  if (need.cpuCores > 0 && (index.free[at + 1] ?? 0) < need.cpuCores) return "short of cores";
  return "short of GPUs";
}

/**
 * Why an eligible node holds none on free capacity: the first dimension short, in numbers, and
 * how many preempting would make room for.
 */
export function shortOf(index: FleetIndex, slot: number, need: Resources, byPreempting: number): string {
  const at = slot * DIMENSIONS;
  const room = (d: number) => Math.max(0, index.free[at + d] ?? 0);
  const of = (d: number) => index.capacity[at + d] ?? 0;
  let short: string;
  if (need.memoryGB > 0 && room(0) < need.memoryGB) {
    short = `needs ${need.memoryGB} GB, has ${amount(room(0))} GB free of ${amount(of(0))}`;
  } else if (need.cpuCores > 0 && room(1) < need.cpuCores) {
    short = `needs ${plural(need.cpuCores, "core")}, has ${amount(room(1))} free of ${amount(of(1))}`;
  } else if (of(2) === 0) {
    short = `needs ${plural(need.gpus, "GPU")}, has none`;
  } else {
    short = `needs ${plural(need.gpus, "GPU")}, has ${amount(room(2))} free of ${amount(of(2))}`;
  }
  return byPreempting > 0 ? `${short}; preempting lower classes makes room for ${byPreempting}` : short;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** Whole numbers as they are, fractions of a GB to one decimal. */
function amount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
