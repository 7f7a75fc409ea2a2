import { Counter, type Metric, type Registry } from "prom-client";

// The gateway counts every request in several labelled series (SPEC §7.7, §12.4). prom-client
// checks and hashes a label object on each update (validateLabel, hashObject): ten updates a
// request were 5% of the gateway's busy CPU on small replies, a tenth of what llmgw adds to a bare
// proxy. Here the caller keeps each label set's figures in one record under a key of its own (a
// string it already has), the hot path adds numbers to fields, and prom-client is handed the sums
// when scraped: counters through their `collect`, histograms as a metric of this file that the
// registry prints like its own.

type Labels<L extends string> = Record<L, string>;
/** A sample as the registry prints it (prom-client's own metrics hand over the same). */
type Sample = {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
};
type Printed = { name: string; help: string; type: "histogram"; aggregator: "sum"; values: Sample[] };

/** Each label set's record, made once on first sight of its key. */
export class Keyed<L extends string, R extends { labels: Labels<L> }> {
  readonly #records = new Map<string, R>();
  constructor(private readonly make: (labels: Labels<L>) => R) {}

  /** The record of `key`; `labels` are asked for only the first time the key is seen. */
  at(key: string, labels: () => Labels<L>): R {
    let record = this.#records.get(key);
    if (record === undefined) {
      record = this.make(labels());
      this.#records.set(key, record);
    }
    return record;
  }

  values(): IterableIterator<R> {
    return this.#records.values();
  }
}

/**
 * A counter whose series are read from records when scraped: `sums(record)` gives each series'
 * extra labels and value (a series is printed once counted, as prom-client's own counter does).
 */
export function summedCounter<L extends string, R extends { labels: Labels<L> }>(
  registry: Registry,
  options: { name: string; help: string; labelNames: readonly string[] },
  records: Keyed<L, R>,
  sums: (record: R) => Iterable<readonly [Record<string, string> | null, number]>,
): Counter {
  return new Counter({
    ...options,
    registers: [registry],
    collect() {
      this.reset();
      for (const record of records.values())
        for (const [extra, value] of sums(record))
          this.inc(extra === null ? record.labels : { ...record.labels, ...extra }, value);
    },
  });
}

/** One label set's histogram: counts by bucket (the last one past every bound: +Inf), sum, count. */
export class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A histogram whose label sets are fields of records (`buckets(record)`, null: none observed yet),
 * registered on `registry` and printed as prom-client prints its Histogram: cumulative `_bucket`
 * lines with `le` first, then `+Inf`, `_sum` and `_count`.
 */
export class SummedHistogram<L extends string, R extends { labels: Labels<L> }> {
  readonly type = "histogram" as const;
  readonly aggregator = "sum" as const;
  readonly name: string;
  readonly help: string;

  constructor(
    registry: Registry,
    options: { name: string; help: string },
    readonly bounds: readonly number[],
    private readonly records: Keyed<L, R>,
    private readonly buckets: (record: R) => Buckets | null,
  ) {
    this.name = options.name;
    this.help = options.help;
    // The registry reads a metric through get() (and getForPromString, when there is one) only.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A fresh Buckets for this histogram's bounds. */
  fresh(): Buckets {
    return new Buckets(this.bounds);
  }

  async getForPromString(): Promise<Printed> {
    return { ...this.#head(), values: this.#values(false) };
  }

  async get(): Promise<Printed> {
    return { ...this.#head(), values: this.#values(true) };
  }

  /** Forgets nothing: the records are the caller's (a registry's resetMetrics leaves them). */
  reset(): void {}

  #head() {
    return {
      name: this.name,
      help: this.help,
      type: this.type as never,
      aggregator: this.aggregator as never,
    };
  }

  /** prom-client's shape: `le` as the sample's own label, the set's labels as shared ones (or splayed, for JSON). */
  #values(splay: boolean): Sample[] {
    const values: Sample[] = [];
    const sample = (
      metricName: string,
      own: Record<string, string | number>,
      labels: Labels<L>,
      value: number,
    ) =>
      values.push(
        splay
          ? { labels: { ...own, ...labels }, value, metricName }
          : { labels: own, sharedLabels: labels, value, metricName },
      );
    for (const record of this.records.values()) {
      const b = this.buckets(record);
      if (b === null) continue;
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += b.counts[i] ?? 0;
        sample(`${this.name}_bucket`, { le }, record.labels, below);
      });
      sample(`${this.name}_bucket`, { le: "+Inf" }, record.labels, b.count);
      sample(`${this.name}_sum`, {}, record.labels, b.sum);
      sample(`${this.name}_count`, {}, record.labels, b.count);
    }
    return values;
  }
}
