import { Gauge, Histogram, type Registry } from "prom-client";
import type { GatewayMeter, GatewayNow, RequestOutcome } from "../gateway/meter";
import { perModelGauge } from "./perModel";
import { type Buckets, Keyed, SummedHistogram, summedCounter } from "./series";

/** From a cached prompt's first token (5 ms) to a long generation (2 min); slower lands in +Inf. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
/** A wait may last up to `gateway.maxWaitSeconds` (300 by default): a cold start included. */
export const WAIT_BUCKETS = [...LATENCY_BUCKETS, 300];
/** Wake → first replica ready: loading weights takes seconds to minutes. */
export const COLD_START_BUCKETS = [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

/**
 * At most this many first-byte times per model between two traffic ticks: a busy second (or a
 * meter whose ticks stopped) holds a uniform sample of them, not every one.
 */
export const FIRST_BYTE_SAMPLE = 1024;

/** What one model's finished requests added up to since the traffic tick last took them. */
export type ModelSecond = {
  requests: number;
  /** Requests that had a first byte. */
  firstBytes: number;
  /** Their times to first byte (ms): all of them, or a uniform sample of FIRST_BYTE_SAMPLE. */
  firstByteMs: number[];
  completionTokens: number;
  /** Prompt tokens reported, and of them those the engine found cached (SPEC §7.1a). */
  promptTokens?: number;
  cachedTokens?: number;
};

/** Nothing held: for a meter created before its gateway exists. */
export const IDLE_GATEWAY: GatewayNow = { models: new Map(), tokens: new Map() };

/** A duration the gateway measured, in seconds; null for one that makes no sense (never thrown on). */
const secondsOf = (ms: number | null): number | null =>
  ms !== null && Number.isFinite(ms) ? Math.max(0, ms) / 1000 : null;
const tokensOf = (n: number | null): number => (n !== null && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * The gateway's counting (SPEC §7.7) as Prometheus series `llmgw_gateway_*` on one app's registry.
 * Labels are `model` (the catalogue name, "" for a request naming no known model) and `token` (a
 * configured token's name), so the series are bounded by the catalogue and the configuration.
 * Gauges read `now()` when scraped. It also keeps each model's figures since the last traffic tick
 * (traffic.ts turns them into `model.traffic` events).
 */
export class PromGatewayMeter implements GatewayMeter {
  readonly now: () => GatewayNow;
  #second = new Map<string, ModelSecond>();
  /** Each (model, token)'s figures, summed here and handed to the registry when scraped (series.ts). */
  readonly #series = new Keyed<"model" | "token", RequestSeries>((labels) => ({
    labels,
    statuses: new Map(),
    queueWait: this.#queueWait.fresh(),
    firstByte: this.#firstByte.fresh(),
    duration: this.#duration.fresh(),
    promptTokens: null,
    completionTokens: null,
    cachedTokens: null,
  }));
  readonly #queueWait: SummedHistogram<"model" | "token", RequestSeries>;
  readonly #firstByte: SummedHistogram<"model" | "token", RequestSeries>;
  readonly #duration: SummedHistogram<"model" | "token", RequestSeries>;
  readonly #coldStart: Histogram<"model">;

  constructor(options: { registry: Registry; now: () => GatewayNow }) {
    const { registry } = options;
    this.now = options.now;
    const series = this.#series;
    const byRequest = ["model", "token"] as const;
    summedCounter(
      registry,
      {
        name: "llmgw_gateway_requests_total",
        help: "Requests through the gateway that ended, by the status the client got (499: it went away).",
        labelNames: [...byRequest, "status"],
      },
      series,
      (s) => [...s.statuses].map(([status, n]) => [{ status: String(status) }, n] as const),
    );
    const histogram = (
      name: string,
      help: string,
      buckets: number[],
      of: (s: RequestSeries) => Buckets,
      // A label set's series is printed once something was observed in it, as prom-client does.
    ) =>
      new SummedHistogram(registry, { name, help }, buckets, series, (s) => (of(s).count > 0 ? of(s) : null));
    this.#queueWait = histogram(
      "llmgw_gateway_queue_wait_seconds",
      "From arrival to being sent to a replica, a wake included (0 when sent at once).",
      WAIT_BUCKETS,
      (s) => s.queueWait,
    );
    this.#firstByte = histogram(
      "llmgw_gateway_first_byte_seconds",
      "From arrival to the answer's first byte reaching the client.",
      LATENCY_BUCKETS,
      (s) => s.firstByte,
    );
    this.#duration = histogram(
      "llmgw_gateway_request_duration_seconds",
      "From arrival to the end of the answer.",
      LATENCY_BUCKETS,
      (s) => s.duration,
    );
    const tokens = (name: string, help: string, of: (s: RequestSeries) => number | null) =>
      summedCounter(registry, { name, help, labelNames: byRequest }, series, (s) => {
        const n = of(s);
        return n === null ? [] : [[null, n] as const];
      });
    tokens(
      "llmgw_gateway_prompt_tokens_total",
      "Prompt tokens, as the engine's usage reported them.",
      (s) => s.promptTokens,
    );
    tokens(
      "llmgw_gateway_completion_tokens_total",
      "Completion tokens, as the engine's usage reported them.",
      (s) => s.completionTokens,
    );
    tokens(
      "llmgw_gateway_prompt_tokens_cached_total",
      "Prompt tokens the engine found in its cache (usage.prompt_tokens_details.cached_tokens, or llama-server's timings.cache_n).",
      (s) => s.cachedTokens,
    );
    this.#coldStart = new Histogram({
      name: "llmgw_gateway_cold_start_seconds",
      help: "From a wake this process recorded to the model's first replica being ready.",
      labelNames: ["model"] as const,
      buckets: COLD_START_BUCKETS,
      registers: [registry],
    });
    this.#registerGauges(registry);
  }

  finished(outcome: RequestOutcome): void {
    const { model, token } = outcome;
    const s = this.#series.at(`${model}\u0000${token}`, () => ({ model, token }));
    s.statuses.set(outcome.status, (s.statuses.get(outcome.status) ?? 0) + 1);
    const queued = secondsOf(outcome.queuedMs);
    if (queued !== null) s.queueWait.observe(queued);
    const firstByte = secondsOf(outcome.firstByteMs);
    if (firstByte !== null) s.firstByte.observe(firstByte);
    const duration = secondsOf(outcome.durationMs);
    if (duration !== null) s.duration.observe(duration);
    const prompt = tokensOf(outcome.promptTokens);
    const completion = tokensOf(outcome.completionTokens);
    if (outcome.promptTokens !== null) s.promptTokens = (s.promptTokens ?? 0) + prompt;
    if (outcome.completionTokens !== null) s.completionTokens = (s.completionTokens ?? 0) + completion;
    const cached = tokensOf(outcome.cachedTokens ?? null);
    if (outcome.cachedTokens !== undefined) s.cachedTokens = (s.cachedTokens ?? 0) + cached;
    // A request naming no known model is not any model's traffic.
    if (model === "") return;
    const second = this.#second.get(model) ?? {
      requests: 0,
      firstBytes: 0,
      firstByteMs: [],
      completionTokens: 0,
    };
    second.requests += 1;
    if (firstByte !== null) sampleFirstByte(second, firstByte * 1000);
    second.completionTokens += completion;
    // The ratio is over requests whose engine said both: a prompt count alone says nothing cached.
    if (outcome.promptTokens !== null && outcome.cachedTokens !== undefined) {
      second.promptTokens = (second.promptTokens ?? 0) + prompt;
      second.cachedTokens = (second.cachedTokens ?? 0) + Math.min(cached, prompt);
    }
    this.#second.set(model, second);
  }

  coldStart(model: string, ms: number): void {
    const seconds = secondsOf(ms);
    if (seconds !== null) this.#coldStart.observe({ model }, seconds);
  }

  /** Each model's finished requests since the last call (traffic.ts, once a second); starts afresh. */
  takeSecond(): Map<string, ModelSecond> {
    const taken = this.#second;
    this.#second = new Map();
    return taken;
  }

  #registerGauges(registry: Registry): void {
    const now = () => this.now();
    // A model the gateway no longer holds anything for drops out.
    const perModel = (name: string, help: string, value: (m: ModelNow) => number) =>
      perModelGauge(registry, () => now().models, name, help, value);
    perModel(
      "llmgw_gateway_in_flight",
      "Requests sent to a replica and not yet answered.",
      (m) => m.inFlight,
    );
    perModel("llmgw_gateway_queued", "Requests waiting in the model's queue.", (m) => m.queued);
    perModel(
      "llmgw_gateway_waiting_seconds",
      "How long the longest-waiting queued request has waited (0 when none waits).",
      (m) => (m.longestWaitMs ?? 0) / 1000,
    );
    perModel(
      "llmgw_gateway_waking",
      "1 while the model has no ready replica and requests wait for one.",
      (m) => (m.waking ? 1 : 0),
    );
    new Gauge({
      name: "llmgw_gateway_in_flight_by_token",
      help: "Requests in flight, by the token that sent them.",
      labelNames: ["token"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [token, inFlight] of now().tokens) this.set({ token }, inFlight);
      },
    });
  }
}

/** Reservoir sampling: every first byte so far has the same chance to be in the sample. */
function sampleFirstByte(second: ModelSecond, ms: number): void {
  second.firstBytes += 1;
  if (second.firstByteMs.length < FIRST_BYTE_SAMPLE) {
    second.firstByteMs.push(ms);
    return;
  }
  const slot = Math.floor(Math.random() * second.firstBytes);
  if (slot < FIRST_BYTE_SAMPLE) second.firstByteMs[slot] = ms;
}

/** One (model, token)'s figures since the process started; null: a token kind never reported. */
type RequestSeries = {
  labels: { model: string; token: string };
  statuses: Map<number, number>;
  queueWait: Buckets;
  firstByte: Buckets;
  duration: Buckets;
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
};

type ModelNow = GatewayNow["models"] extends ReadonlyMap<string, infer V> ? V : never;
