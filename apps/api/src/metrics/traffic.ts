import type { ModelTraffic } from "@llmgw/domain";
import { type Logger, silentLogger } from "@llmgw/log";
import type { EventHub } from "../events/eventHub";
import type { GatewayNow } from "../gateway/meter";
import type { ModelSecond } from "./gateway";
import type { RecentTraffic } from "./recentTraffic";

const TICK_MS = 1_000;

/** Two decimals: a rate or a median in an event, not a measurement to re-derive. */
const round = (value: number) => Math.round(value * 100) / 100;

/** The median (nearest rank) of a second's first-byte times; null when no request had a first byte. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] ?? null;
}

/** The second's prompt tokens and cache hit ratio, when an engine reported what it had cached. */
function cacheOf(done: ModelSecond | undefined, seconds: number) {
  const prompt = done?.promptTokens ?? 0;
  if (prompt === 0) return {};
  return {
    promptTokensPerSecond: round(prompt / seconds),
    cachedPromptRatio: round((done?.cachedTokens ?? 0) / prompt),
  };
}

/**
 * The `model.traffic` events (SPEC §7.7) for one tick: one per model with traffic, that is with a
 * request that finished since the last tick or one in flight or queued now; by model name. Rates
 * are over `elapsedSeconds`, the time since the last tick (a late timer does not inflate them).
 * A request's tokens count in the tick it finished in (the meter hears of a request once, at its end).
 */
export function trafficOf(
  finished: ReadonlyMap<string, ModelSecond>,
  now: GatewayNow,
  elapsedSeconds: number,
): ModelTraffic[] {
  const seconds = Math.max(elapsedSeconds, 0.001);
  const models = new Set(finished.keys());
  for (const [model, held] of now.models) if (held.inFlight > 0 || held.queued > 0) models.add(model);
  return [...models].sort().map((model) => {
    const done = finished.get(model);
    const held = now.models.get(model);
    const p50 = median(done?.firstByteMs ?? []);
    return {
      model,
      requestsPerSecond: round((done?.requests ?? 0) / seconds),
      inFlight: held?.inFlight ?? 0,
      queued: held?.queued ?? 0,
      waitingSeconds:
        held && held.queued > 0 && held.longestWaitMs !== null ? round(held.longestWaitMs / 1000) : null,
      waking: held?.waking ?? false,
      firstByteP50Ms: p50 === null ? null : round(p50),
      tokensPerSecond: round((done?.completionTokens ?? 0) / seconds),
      ...cacheOf(done, seconds),
    };
  });
}

/**
 * Every second, sends this process's `model.traffic` events to its open event streams, unstored
 * (`hub.sendEphemeral`): they are per process and of the moment. One timer per app, started with
 * the gateway, unref'd (it never holds the process open); the returned function stops it.
 */
export function startTraffic(options: {
  hub: EventHub;
  now: () => GatewayNow;
  meter: { takeSecond(): Map<string, ModelSecond> };
  /** Keeps each tick's events for `GET /models/:name/traffic` (SPEC §7.7). */
  recent?: RecentTraffic;
  /**
   * Hands a tick with traffic (its Unix second, its events) to the other processes sharing the
   * store, so each one's answer sums them all. One at a time: a tick that comes while the last is
   * still being written is not written (the window shows that second as this process's gap, rather
   * than writes piling up behind a slow database).
   */
  share?: (at: number, events: readonly ModelTraffic[]) => Promise<void>;
  /** Tests tick faster; SPEC §7.7 says every second. */
  intervalMs?: number;
  log?: Logger;
}): () => void {
  const { hub, now, meter, recent, share, intervalMs = TICK_MS, log = silentLogger() } = options;
  let sharing = false;
  // What finished before the timer started is not this tick's.
  meter.takeSecond();
  let last = performance.now();
  const timer = setInterval(() => {
    const at = performance.now();
    const elapsed = (at - last) / 1000;
    last = at;
    try {
      const events = trafficOf(meter.takeSecond(), now(), elapsed);
      const second = Math.floor(Date.now() / 1000);
      recent?.record(second, events);
      for (const data of events) hub.sendEphemeral({ type: "model.traffic", data });
      if (share && events.length > 0 && !sharing) {
        sharing = true;
        share(second, events)
          .catch((err: unknown) => log.error({ err }, "storing model.traffic failed"))
          .finally(() => {
            sharing = false;
          });
      }
    } catch (err) {
      log.error({ err }, "sending model.traffic failed");
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
