// The load bench's bookkeeping: per kind of request, its latencies, statuses and errors (a status
// not right for the request, a network error or a time-out); per second of the run, the answers
// and the slowest; the five slowest requests with where their time went.
import { percentile } from "./report";

export type Answer = { status: number; body: string };
/** When a request got its connection, was all written, and had its answer's headers (ms; -1: never). */
export type Phases = { socket: number; written: number; headers: number };
type Tally = { latencies: number[]; statuses: Record<string, number>; errors: number; samples: string[] };

export class Tallies<Kind extends string> {
  #measuring = false;
  #started = 0;
  readonly #tallies: Map<Kind, Tally>;
  readonly #timeline: { answered: number; worst: number }[] = [];
  readonly #slowest: { kind: Kind; sentAt: number; ms: number; phases: Phases | undefined }[] = [];

  constructor(
    readonly kinds: readonly Kind[],
    /** The statuses that are right for each kind of request. */
    readonly right: Record<Kind, readonly number[]>,
  ) {
    this.#tallies = new Map(kinds.map((k) => [k, { latencies: [], statuses: {}, errors: 0, samples: [] }]));
  }

  get measuring(): boolean {
    return this.#measuring;
  }

  start(): number {
    this.#measuring = true;
    this.#started = performance.now();
    return this.#started;
  }

  record(kind: Kind, ms: number, answer: Answer | null, failure?: string, phases?: Phases): void {
    const tally = this.#tallies.get(kind);
    if (!this.#measuring || !tally) return;
    tally.latencies.push(ms);
    const now = performance.now() - this.#started;
    const slot = this.#timeline[Math.floor(now / 1000)] ?? { answered: 0, worst: 0 };
    this.#timeline[Math.floor(now / 1000)] = slot;
    slot.answered++;
    slot.worst = Math.max(slot.worst, ms);
    if (ms > (this.#slowest[4]?.ms ?? 0)) {
      this.#slowest.push({ kind, sentAt: (now - ms) / 1000, ms, phases });
      this.#slowest.sort((a, b) => b.ms - a.ms).splice(5);
    }
    const key = answer ? String(answer.status) : "network";
    tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
    if (answer && this.right[kind].includes(answer.status)) return;
    tally.errors++;
    if (tally.samples.length < 5)
      tally.samples.push(failure ?? `${answer?.status}: ${answer?.body.slice(0, 300) ?? ""}`);
  }

  /** An answer with the right status and the wrong body: an error, its latency already recorded. */
  wrong(kind: Kind, why: string): void {
    const tally = this.#tallies.get(kind);
    if (!this.#measuring || !tally) return;
    tally.errors++;
    if (tally.samples.length < 5) tally.samples.push(why);
  }

  /** Ends the run: the figures per kind and in all, over the seconds since `start`. */
  stop() {
    this.#measuring = false;
    const seconds = (performance.now() - this.#started) / 1000;
    const kinds = this.kinds.map((kind) => {
      const t = this.#tallies.get(kind) ?? { latencies: [], statuses: {}, errors: 0, samples: [] };
      return {
        kind,
        count: t.latencies.length,
        rps: t.latencies.length / seconds,
        p50: percentile(t.latencies, 50),
        p99: percentile(t.latencies, 99),
        max: t.latencies.reduce((a, b) => Math.max(a, b), 0),
        errors: t.errors,
        statuses: t.statuses,
        samples: t.samples,
      };
    });
    const all = [...this.#tallies.values()].flatMap((t) => t.latencies);
    return {
      seconds,
      kinds,
      total: {
        count: all.length,
        rps: all.length / seconds,
        p50: percentile(all, 50),
        p99: percentile(all, 99),
        errors: kinds.reduce((s, k) => s + k.errors, 0),
      },
      slowest: this.#slowest,
      timeline: Array.from(this.#timeline, (slot) => slot ?? { answered: 0, worst: 0 }),
    };
  }
}
