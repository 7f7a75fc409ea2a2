import type { TrafficHistory, TrafficSecond } from "@llmgw/contract";
import type { ModelTraffic } from "@llmgw/domain";
import type { Store, StoredTrafficSecond } from "@llmgw/store";

/** How far back `GET /models/:name/traffic` reaches (SPEC §7.7: the last 10 minutes). */
export const TRAFFIC_HISTORY_SECONDS = 600;

/**
 * This process's last 10 minutes of `model.traffic`, per model, for a page opened after the traffic
 * (SPEC §7.7). Bounded: at most one entry per model per second for TRAFFIC_HISTORY_SECONDS, and a
 * model quiet for that long is forgotten, so memory follows the models with recent traffic.
 */
export class RecentTraffic {
  readonly #byModel = new Map<string, TrafficSecond[]>();
  /** The first second recorded; null until the traffic ticker records its first tick. */
  #since: number | null = null;

  /** How many models it holds seconds of (what its memory grows with). */
  get size(): number {
    return this.#byModel.size;
  }

  /** One tick's events (possibly none: the tick still says the seconds before it are known). */
  record(at: number, events: readonly ModelTraffic[]): void {
    this.#since ??= at;
    for (const { model, ...figures } of events) {
      const seconds = this.#byModel.get(model) ?? [];
      // Two ticks in one second (a late timer, then a prompt one) are one second's figures: the later wins.
      if (seconds.at(-1)?.at === at) seconds.pop();
      seconds.push({ at, ...figures });
      this.#byModel.set(model, seconds);
    }
    this.#forget(at);
  }

  /** The model's traffic as `GET /models/:name/traffic` answers it, at Unix second `now`. */
  of(model: string, now: number): TrafficHistory {
    const from = now - TRAFFIC_HISTORY_SECONDS + 1;
    const since = this.#since === null ? null : Math.max(this.#since, from);
    const seconds = (this.#byModel.get(model) ?? []).filter((s) => s.at >= from && s.at <= now);
    return { model, now, since, seconds };
  }

  #forget(now: number): void {
    const from = now - TRAFFIC_HISTORY_SECONDS + 1;
    for (const [model, seconds] of this.#byModel) {
      const keep = seconds.findIndex((s) => s.at >= from);
      if (keep === -1) this.#byModel.delete(model);
      else if (keep > 0) seconds.splice(0, keep);
    }
  }
}

/** Two decimals, as the events carry them. */
const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Every process's seconds of one model summed into one per second (SPEC §7.7 "summed over
 * processes"): rates and counts add up; the longest wait and the slowest median first byte stand
 * for the second (medians do not add, and the slowest is the one to see); waking if any says so.
 */
export function sumSeconds(rows: readonly StoredTrafficSecond[]): TrafficSecond[] {
  const byAt = new Map<number, TrafficSecond>();
  for (const { at, traffic: t } of rows) {
    const held = byAt.get(at);
    if (!held) {
      const { model: _, ...figures } = t;
      byAt.set(at, { at, ...figures });
      continue;
    }
    byAt.set(at, {
      at,
      requestsPerSecond: round(held.requestsPerSecond + t.requestsPerSecond),
      inFlight: held.inFlight + t.inFlight,
      queued: held.queued + t.queued,
      waitingSeconds: larger(held.waitingSeconds, t.waitingSeconds),
      waking: held.waking || t.waking,
      firstByteP50Ms: larger(held.firstByteP50Ms, t.firstByteP50Ms),
      tokensPerSecond: round(held.tokensPerSecond + t.tokensPerSecond),
    });
  }
  return [...byAt.values()].sort((a, b) => a.at - b.at);
}

const larger = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * How this process hands its ticks to the others, on a shared PostgreSQL; none on an embedded
 * store, which no other process shares. Each write also drops what is older than the window.
 */
export function sharedTraffic(
  store: Store,
  process: string,
): ((at: number, events: readonly ModelTraffic[]) => Promise<void>) | undefined {
  if (store.kind !== "postgres") return undefined;
  return (at, events) => store.traffic.record(process, at, events, at - TRAFFIC_HISTORY_SECONDS + 1);
}
