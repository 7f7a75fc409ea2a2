import { DEFAULT_IDLE_SECONDS, type Mode, type Scaling } from "./schemas";

/**
 * How a model runs, in the words the card uses. A `min` above zero runs replicas whether or
 * not anyone asks, so it is `always` even when `max` is larger (a shape only a hand-written
 * configuration produces).
 */
export function modeOf(scaling: Pick<Scaling, "min" | "max">): Mode {
  if (scaling.min > 0) return "always";
  if (scaling.max > 0) return "ondemand";
  return "stopped";
}

/**
 * Scaling for a run mode and a replica count (SPEC §2.1). A count below one means one for the
 * modes that run anything: asking for "always, 0" is a slip, not a request to stop.
 *
 * `idleSeconds` is the model's current idle timeout. On demand keeps it, or 900 s when it has
 * none; the other modes carry it unchanged so switching back to on demand loses nothing.
 */
export function scalingFor(
  mode: Mode,
  replicas: number,
  idleSeconds?: number,
  /** The autoscaler's target (SPEC §9.2), carried unchanged: a mode is not a target. */
  targetInFlight?: number | null,
): Scaling {
  const count = Number.isFinite(replicas) ? Math.max(1, Math.floor(replicas)) : 1;
  const target = targetInFlight === undefined ? {} : { targetInFlight };
  switch (mode) {
    case "always":
      return { min: count, max: count, idleTimeoutSeconds: idleSeconds ?? DEFAULT_IDLE_SECONDS, ...target };
    case "ondemand":
      return {
        min: 0,
        max: count,
        idleTimeoutSeconds: idleSeconds !== undefined && idleSeconds > 0 ? idleSeconds : DEFAULT_IDLE_SECONDS,
        ...target,
      };
    case "stopped":
      return { min: 0, max: 0, idleTimeoutSeconds: idleSeconds ?? DEFAULT_IDLE_SECONDS, ...target };
  }
}

/**
 * The replica count a card shows: how many always run (`min`; traffic may add up to `max`, SPEC
 * §9), or how many may run on demand (`max`); 0 when stopped.
 */
export function replicasOf(scaling: Pick<Scaling, "min" | "max">): number {
  switch (modeOf(scaling)) {
    case "always":
      return scaling.min;
    case "ondemand":
      return scaling.max;
    case "stopped":
      return 0;
  }
}

/**
 * How many replicas a model wants now: what its traffic asks when it is autoscaled (SPEC §9.5's
 * `wanted`), else the count its mode runs. Every screen's "running of wanted" reads this.
 */
export function replicasWanted(model: {
  scaling: Pick<Scaling, "min" | "max">;
  autoscale: { wanted: number } | null;
}): number {
  return model.autoscale?.wanted ?? replicasOf(model.scaling);
}

/**
 * Why a stopped model serves no request (SPEC §2.1, §7.6 `model_stopped`), or null when it serves.
 * The one sentence the request path says wherever it meets a stopped model: its list leaves it
 * out, naming it is refused, and requests waiting for it are let go.
 */
export function stoppedReason(model: { name: string; scaling: Pick<Scaling, "min" | "max"> }): string | null {
  return modeOf(model.scaling) === "stopped" ? `${model.name} is stopped: an operator must start it` : null;
}

/**
 * Whether an on-demand model woken at `wokenAt` (ms; undefined: never) is still awake at `now`:
 * it goes idle once `idleTimeoutSeconds` pass without a request (SPEC §7.2).
 */
export function isAwake(
  scaling: Pick<Scaling, "idleTimeoutSeconds">,
  wokenAt: number | undefined,
  now: number,
): boolean {
  return wokenAt !== undefined && now - wokenAt < scaling.idleTimeoutSeconds * 1000;
}
