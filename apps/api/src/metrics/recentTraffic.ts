import type { TrafficHistory, TrafficSecond } from "@llmgw/contract";
import type { ModelTraffic } from "@llmgw/domain";

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
