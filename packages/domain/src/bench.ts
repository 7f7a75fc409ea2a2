import { z } from "zod";
import { MAX_MEMORY_GB } from "./bounds";
import type { Replica } from "./schemas/fleet";
import { text } from "./text";

// `llmgw ctl bench` (SPEC §5): what a model's replicas can actually do, measured through the
// gateway like any client. The memory figure a serve plan gives is an estimate; this is the
// number from running it. The pure parts live here: the result's shape (what the CLI prints with
// --json, what the API stores and the card shows), percentiles, one run's figures from its
// requests, and the generated prompt. The measuring itself is @llmgw/client's `runBench`.

/** SPEC §5: `--requests` at each concurrency unless told. */
export const DEFAULT_BENCH_REQUESTS = 32;
export const DEFAULT_BENCH_CONCURRENCY: readonly number[] = [1, 4, 16];
export const DEFAULT_BENCH_MAX_TOKENS = 128;
export const DEFAULT_BENCH_PROMPT_TOKENS = 128;
/** Bounds a caller may ask for: a bench is a measurement, not a load test that never ends. */
export const MAX_BENCH_CONCURRENCY = 256;
export const MAX_BENCH_REQUESTS = 10_000;
export const MAX_BENCH_TOKENS = 32_768;

const ms = z.number().min(0).max(86_400_000);
const rate = z.number().min(0).max(1e9);
const count = z.int().min(0).max(1e9);

/** What a bench measures (`POST /models/:name/bench`'s body, `llmgw ctl bench`'s flags), defaults filled. */
export const benchRequestSchema = z.strictObject({
  concurrency: z
    .array(z.int().min(1).max(MAX_BENCH_CONCURRENCY))
    .min(1)
    .max(16)
    .default([...DEFAULT_BENCH_CONCURRENCY]),
  requests: z.int().min(1).max(MAX_BENCH_REQUESTS).default(DEFAULT_BENCH_REQUESTS),
  maxTokens: z.int().min(1).max(MAX_BENCH_TOKENS).default(DEFAULT_BENCH_MAX_TOKENS),
  promptTokens: z.int().min(1).max(MAX_BENCH_TOKENS).default(DEFAULT_BENCH_PROMPT_TOKENS),
  /**
   * SPEC §7.1a: each request begins with its tenant's own beginning of this many tokens (a system
   * prompt), before the `promptTokens` of its own, so the engines' prompt caches and the routing
   * by beginning show in the figures.
   */
  sharedPrefix: z.int().min(1).max(MAX_BENCH_TOKENS).optional(),
  /** How many tenants' beginnings the requests take in turn (with `sharedPrefix`). */
  tenants: z.int().min(1).max(MAX_BENCH_CONCURRENCY).optional(),
});
export type BenchRequest = z.infer<typeof benchRequestSchema>;

/** `POST /models/:name/bench`'s answer: the run started; its progress comes as `model.bench` events. */
export const benchStartedSchema = z.object({
  model: z.string(),
  startedAt: z.string(),
  by: z.string(),
  /** Requests the run will send, over every concurrency. */
  total: count,
});
export type BenchStarted = z.infer<typeof benchStartedSchema>;

/** A running bench's progress (the ephemeral `model.bench` event); `error` once it ended refused. */
export const benchProgressSchema = z.object({
  model: z.string(),
  running: z.boolean(),
  concurrency: z.int().min(1),
  done: count,
  total: count,
  errors: count,
  error: z.string().nullable(),
});
export type BenchProgressEvent = z.infer<typeof benchProgressSchema>;

/** One concurrency's figures. Times in ms; null when no request of the run got that far. */
export const benchRunSchema = z.strictObject({
  concurrency: z.int().min(1).max(MAX_BENCH_CONCURRENCY),
  requests: count,
  errors: count,
  ttftMs: z.strictObject({ p50: ms.nullable(), p95: ms.nullable() }),
  itlMsP50: ms.nullable(),
  /** Output tokens per second of all requests together over the run's wall time. */
  tokensPerSecond: rate,
  /** The median request's own output tokens per second, first token to last. */
  tokensPerSecondPerRequest: rate.nullable(),
  requestsPerSecond: rate,
  /** Of the prompt tokens the engines reported, the share they found cached (absent: none said). */
  cachedPromptRatio: z.number().min(0).max(1).optional(),
});
export type BenchRun = z.infer<typeof benchRunSchema>;

/** A replica's memory as its agent measured it after the run (null: its agent reports none). */
export const benchReplicaSchema = z.strictObject({
  id: text().min(1).max(128),
  node: text().max(64).nullable(),
  measuredMemoryGB: z.number().min(0).max(MAX_MEMORY_GB).nullable(),
});

/** What `llmgw ctl bench --json` prints and `PUT /models/:name/bench` takes. */
export const benchResultSchema = z.strictObject({
  model: text().min(1).max(128),
  runs: z.array(benchRunSchema).min(1).max(32),
  /** The largest a replica measured after the run, per replica (what the estimate is compared with). */
  measuredMemoryGB: z.number().min(0).max(MAX_MEMORY_GB).nullable(),
  replicas: z.array(benchReplicaSchema).max(1024).default([]),
});
export type BenchResult = z.infer<typeof benchResultSchema>;

/** A bench as stored on its model (`bench` on `GET /models/:name`): the result, when and by whom. */
export const storedBenchSchema = benchResultSchema.extend({ at: z.string(), by: z.string() });
export type StoredBench = z.infer<typeof storedBenchSchema>;

/**
 * Each running replica's measured memory after a run, and the largest of them: a replica's figure
 * is what compares with the per-replica estimate. Null when no agent has measured one.
 */
export function benchMemory(
  replicas: readonly Replica[],
): Pick<BenchResult, "measuredMemoryGB" | "replicas"> {
  const running = replicas.filter((r) => !r.unmanaged && (r.state === "ready" || r.state === "starting"));
  const measured = running.flatMap((r) => (r.measuredMemoryGB === null ? [] : [r.measuredMemoryGB]));
  return {
    measuredMemoryGB: measured.length === 0 ? null : Math.max(...measured),
    replicas: running.map((r) => ({ id: r.id, node: r.node, measuredMemoryGB: r.measuredMemoryGB })),
  };
}

/** One request of a run as the measuring code saw it. */
export type BenchSample =
  | {
      ok: true;
      /** From sending to the first streamed token. */
      ttftMs: number;
      /** Gaps between streamed chunks after the first. */
      gapsMs: number[];
      /** Output tokens: the engine's `usage`, else one per streamed chunk. */
      tokens: number;
      /** From the first token to the last. */
      generatingMs: number;
      /** The engine's prompt tokens and, of them, those it found cached, when it said. */
      promptTokens?: number;
      cachedTokens?: number;
    }
  | { ok: false; message: string };

/** The `p`th percentile (0–100) by nearest rank; null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

const round = (n: number | null, places = 1) => (n === null ? null : Number(n.toFixed(places)));

/** One run's figures from its samples and its wall time (first send to last answer). */
export function summarizeRun(concurrency: number, samples: readonly BenchSample[], wallMs: number): BenchRun {
  const ok = samples.filter((s) => s.ok);
  const seconds = wallMs > 0 ? wallMs / 1000 : Number.POSITIVE_INFINITY;
  const tokens = ok.reduce((sum, s) => sum + s.tokens, 0);
  const firstTokens = ok.map((s) => s.ttftMs);
  // A request's own rate counts the tokens after its first over the time after its first.
  const perRequest = ok
    .filter((s) => s.generatingMs > 0 && s.tokens > 1)
    .map((s) => ((s.tokens - 1) / s.generatingMs) * 1000);
  return {
    concurrency,
    requests: samples.length,
    errors: samples.length - ok.length,
    ttftMs: { p50: round(percentile(firstTokens, 50)), p95: round(percentile(firstTokens, 95)) },
    itlMsP50: round(
      percentile(
        ok.flatMap((s) => s.gapsMs),
        50,
      ),
    ),
    tokensPerSecond: round(tokens / seconds) ?? 0,
    tokensPerSecondPerRequest: round(percentile(perRequest, 50)),
    requestsPerSecond: round(ok.length / seconds, 2) ?? 0,
    ...cachedRatioOf(ok),
  };
}

function cachedRatioOf(samples: readonly BenchSample[]): { cachedPromptRatio?: number } {
  let prompt = 0;
  let cached = 0;
  for (const s of samples) {
    if (!s.ok || s.promptTokens === undefined || s.cachedTokens === undefined) continue;
    prompt += s.promptTokens;
    cached += Math.min(s.cachedTokens, s.promptTokens);
  }
  return prompt > 0 ? { cachedPromptRatio: round(cached / prompt, 3) ?? 0 } : {};
}

// Common short English words: most tokenizers give each, with its leading space, one token, so
// N words make a prompt of about N tokens without a data set.
const WORDS =
  "the of and to in is was for on that with as it by at from this be or are an have not which one all were they but had there can more other time some what when into only also after new first may two over".split(
    " ",
  );

/** A prompt of about `tokens` tokens: words in a fixed order, asking for a long answer. */
export function benchPrompt(tokens: number): string {
  const ask = "Continue this list for as long as you can:";
  const words = Array.from({ length: Math.max(0, tokens - 9) }, (_, i) => WORDS[(i * 7) % WORDS.length]);
  return [ask, ...words].join(" ");
}

/**
 * A tenant's own beginning of about `tokens` tokens (`ctl bench --shared-prefix`): the same for
 * every request of the tenant, different from the first words for each tenant.
 */
export function tenantPrefix(tenant: number, tokens: number): string {
  const words = Array.from(
    { length: Math.max(0, tokens - 4) },
    (_, i) => WORDS[(i * 7 + tenant * 13 + Math.floor(i / WORDS.length) * tenant) % WORDS.length],
  );
  return [`Tenant ${tenant}'s documents:`, ...words].join(" ");
}

/**
 * What the card's line reads of a run: a `BenchRun`, or the figures an audit entry keeps of one
 * (the audit page says a bench entry in the same words).
 */
export type BenchLineRun = Pick<BenchRun, "concurrency" | "tokensPerSecond"> & {
  ttftMs: Pick<BenchRun["ttftMs"], "p50">;
};

/** The run with the most tokens per second, the card's headline. */
export function bestRun<R extends BenchLineRun>(bench: { runs: readonly R[] }): R | null {
  return bench.runs.reduce<R | null>(
    (best, run) => (best === null || run.tokensPerSecond > best.tokensPerSecond ? run : best),
    null,
  );
}

/**
 * The card's line (SPEC §5): "measured 41 tok/s at 4 concurrent · first token 180 ms · 5.2 GB
 * measured (estimate 6 GB)". The estimate is the model's per-replica need; null leaves it out.
 */
export function benchLine(
  bench: { runs: readonly BenchLineRun[]; measuredMemoryGB: BenchResult["measuredMemoryGB"] },
  estimateGB: number | null,
): string {
  const best = bestRun(bench);
  const parts: string[] = [];
  if (best) {
    parts.push(`measured ${formatRate(best.tokensPerSecond)} tok/s at ${best.concurrency} concurrent`);
    if (best.ttftMs.p50 !== null) parts.push(`first token ${Math.round(best.ttftMs.p50)} ms`);
  }
  if (bench.measuredMemoryGB !== null) {
    const estimate = estimateGB === null ? "" : ` (estimate ${formatGB(estimateGB)} GB)`;
    parts.push(`${formatGB(bench.measuredMemoryGB)} GB measured${estimate}`);
  }
  return parts.join(" · ");
}

const formatRate = (n: number) => (n >= 10 ? String(Math.round(n)) : String(Number(n.toFixed(1))));
const formatGB = (n: number) => String(Number(n.toFixed(1)));
