import {
  type BenchResult,
  type BenchRun,
  type BenchSample,
  benchMemory,
  benchPrompt,
  type Replica,
  refusalOf,
  summarizeRun,
  tenantPrefix,
} from "@llmgw/domain";
import { sseFrames } from "./events";

// The measuring code of `llmgw ctl bench` (SPEC §5), run by the CLI over HTTP and by the server for
// the dashboard's "Measure": chat completions sent through the gateway exactly as a client sends
// them (streaming, `stream_options.include_usage`), at each concurrency in turn. How a request
// reaches the gateway is the caller's `send`; everything measured is measured here, once.

/** Sends one chat completion body to the gateway's `/v1/chat/completions` and resolves with its answer. */
export type BenchSend = (body: string, signal: AbortSignal) => Promise<Response>;

export type BenchProgress = {
  /** The concurrency being measured now. */
  concurrency: number;
  /** Requests answered (or failed) so far, over every concurrency. */
  done: number;
  total: number;
  errors: number;
};

export type BenchOptions = {
  model: string;
  concurrency: readonly number[];
  /** Requests at each concurrency. */
  requests: number;
  maxTokens: number;
  promptTokens: number;
  /** Each request begins with one of `tenants` tenants' beginnings of this many tokens (SPEC §7.1a). */
  sharedPrefix?: number | undefined;
  tenants?: number | undefined;
  send: BenchSend;
  /** The model's replicas as the API has them after the runs, for their measured memory. */
  replicas: () => Promise<readonly Replica[]>;
  onProgress?: (progress: BenchProgress) => void;
  signal?: AbortSignal;
};

/**
 * A refusal that ends the bench at once, with the gateway's reason: the model cannot be woken
 * (`no_capacity`), is stopped, is not there, or the caller may not call it. Every further request
 * would be refused the same way, so measuring on would only count the same error.
 */
export class BenchStopped extends Error {
  override readonly name = "BenchStopped";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const ENDING_CODES = new Set(["no_capacity", "model_stopped", "model_not_found", "model_not_allowed"]);
const endsBench = (status: number, code: string) =>
  status === 401 || status === 403 || status === 404 || ENDING_CODES.has(code);

/**
 * Measures `model` at each concurrency and reads its replicas' memory after. One request is sent
 * first and not counted: it wakes an on-demand model (the gateway holds it until a replica is
 * ready), so the first run measures serving, not the cold start. Throws `BenchStopped` when the
 * gateway refuses in a way no later request would get past.
 */
export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const { model, requests, concurrency } = options;
  // Ends every request in flight once one is refused for good, or when the caller aborts.
  const stop = new AbortController();
  const abort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) abort();
  options.signal?.addEventListener("abort", abort, { once: true });
  const measuring = { ...options, signal: stop.signal };
  const total = requests * concurrency.length;
  let done = 0;
  let errors = 0;
  try {
    // Its failure, if any, is not a figure: the runs will count what fails for them.
    await oneRequest(measuring, bodyOf(options, 1));
    const runs: BenchRun[] = [];
    for (const level of concurrency) {
      options.onProgress?.({ concurrency: level, done, total, errors });
      const run = await measureRun(measuring, level, (sample) => {
        done++;
        if (!sample.ok) errors++;
        options.onProgress?.({ concurrency: level, done, total, errors });
      });
      runs.push(run);
    }
    return { model, runs, ...benchMemory(await options.replicas()) };
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    options.signal?.removeEventListener("abort", abort);
  }
}

async function measureRun(
  options: BenchOptions,
  concurrency: number,
  onSample: (sample: BenchSample) => void,
): Promise<BenchRun> {
  options.signal?.throwIfAborted();
  const samples: BenchSample[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.requests) {
      const nth = next++;
      const sample = await oneRequest(options, bodyOf(options, options.maxTokens, nth));
      samples.push(sample);
      onSample(sample);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, options.requests) }, worker));
  return summarizeRun(concurrency, samples, performance.now() - started);
}

function bodyOf(
  options: Pick<BenchOptions, "model" | "promptTokens" | "sharedPrefix" | "tenants">,
  maxTokens: number,
  nth = 0,
): string {
  const { sharedPrefix, tenants = 1 } = options;
  const messages =
    sharedPrefix === undefined
      ? [{ role: "user", content: benchPrompt(options.promptTokens) }]
      : [
          { role: "system", content: tenantPrefix(nth % tenants, sharedPrefix) },
          // Its own question: requests of one tenant share the beginning, not the whole prompt.
          { role: "user", content: `${nth}. ${benchPrompt(options.promptTokens)}` },
        ];
  return JSON.stringify({
    model: options.model,
    messages,
    max_tokens: maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  });
}

/** One streamed request, timed; a refusal that ends the bench is thrown, any other failure is a sample. */
async function oneRequest(options: BenchOptions, body: string): Promise<BenchSample> {
  const signal = options.signal ?? new AbortController().signal;
  const sent = performance.now();
  try {
    const response = await options.send(body, signal);
    // An in-process gateway answers a request whose caller went away rather than throwing.
    signal.throwIfAborted();
    if (!response.ok || !response.body) {
      const { code, message } = refusalIn(response.status, await response.text().catch(() => ""));
      if (endsBench(response.status, code)) throw new BenchStopped(response.status, code, message);
      return { ok: false, message: `${response.status} ${code}: ${message}` };
    }
    const sample = await streamed(response.body, sent, signal);
    // Aborting ends the stream's frames quietly: a cut-short answer is no sample.
    signal.throwIfAborted();
    return sample;
  } catch (err) {
    if (err instanceof BenchStopped || signal.aborted) throw err;
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** Reads a chat completion stream: when each content chunk came, and the engine's `usage` if it sends one. */
async function streamed(
  body: ReadableStream<Uint8Array>,
  sent: number,
  signal: AbortSignal,
): Promise<BenchSample> {
  const times: number[] = [];
  let usageTokens: number | null = null;
  let cache: { promptTokens?: number; cachedTokens?: number } = {};
  for await (const frame of sseFrames(body, signal)) {
    if (frame.kind !== "event") continue;
    if (frame.data === "[DONE]") break;
    const chunk = parsed(frame.data);
    if (chunk === null) continue;
    if (isRecord(chunk.error)) {
      return { ok: false, message: `the stream failed: ${String(chunk.error.message ?? "no message")}` };
    }
    const completion = isRecord(chunk.usage) ? chunk.usage.completion_tokens : undefined;
    if (typeof completion === "number") usageTokens = completion;
    if (isRecord(chunk.usage)) cache = cacheOf(chunk);
    if (hasContent(chunk)) times.push(performance.now());
  }
  const first = times[0];
  const last = times.at(-1);
  if (first === undefined || last === undefined)
    return { ok: false, message: "the answer streamed no tokens" };
  return {
    ok: true,
    ttftMs: first - sent,
    gapsMs: times.slice(1).map((t, i) => t - (times[i] ?? t)),
    // SPEC §5: the engine's count when it gives one, else one per streamed chunk.
    tokens: usageTokens ?? times.length,
    generatingMs: last - first,
    ...cache,
  };
}

/** The engine's prompt tokens and cached ones (`prompt_tokens_details`, or llama-server's `timings`). */
function cacheOf(chunk: Record<string, unknown>): { promptTokens?: number; cachedTokens?: number } {
  const usage = isRecord(chunk.usage) ? chunk.usage : {};
  const details = isRecord(usage.prompt_tokens_details)
    ? usage.prompt_tokens_details.cached_tokens
    : undefined;
  const timings = isRecord(chunk.timings) ? chunk.timings.cache_n : undefined;
  const cached = typeof details === "number" ? details : typeof timings === "number" ? timings : undefined;
  if (typeof usage.prompt_tokens !== "number" || cached === undefined) return {};
  return { promptTokens: usage.prompt_tokens, cachedTokens: cached };
}

function hasContent(chunk: Record<string, unknown>): boolean {
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  return choices.some((choice: unknown) => {
    if (!isRecord(choice)) return false;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    const piece = delta.content ?? delta.reasoning_content ?? choice.text;
    return typeof piece === "string" && piece !== "";
  });
}

/** The gateway's refusal (OpenAI's `{ error: { message, code } }`) read as every client reads one. */
function refusalIn(status: number, text: string): { code: string; message: string } {
  const refusal = refusalOf(status, text);
  // Not the gateway's shape: the start of the text says more than the status.
  return refusal.code === null
    ? { code: String(status), message: text.slice(0, 200) || `HTTP ${status}` }
    : { code: refusal.code, message: refusal.message };
}

function parsed(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
