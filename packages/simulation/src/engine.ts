import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PromptCache, promptWords } from "./promptCache";

// A stand-in for an OpenAI-compatible engine (llama.cpp's server, vLLM): a real HTTP server on
// loopback answering what the gateway sends, at a token rate, with knobs to fail the ways real
// engines fail. For tests and the demo; it knows nothing of llmgw.

/** A request the engine received, as it came. */
export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The body parsed as JSON (the text when it is not). */
  body: unknown;
  /** The body exactly as it came. */
  text: string;
};

/**
 * How a request fails: an HTTP 500 (the engine up but its model broken: a bad template, weights it
 * cannot run), 502/503 (busy or restarting: a gateway tries elsewhere), or the connection dropped
 * before any byte.
 */
export type Failure = 500 | 502 | 503 | "drop";

export type EngineOptions = {
  /** The model id it says it serves (`/v1/models`, `model` in answers). */
  model?: string;
  /** Tokens generated per second. */
  tokensPerSecond?: number;
  /** Tokens in every reply (`max_tokens` lowers it). */
  replyTokens?: number;
  /** Keeps no record of requests (the demo's engines answer for hours; tests read the records). */
  forgetful?: boolean;
  /**
   * A prompt cache of this many tokens (words): prompts beginning like a cached one are read only
   * past the match, and the answer reports the cached count. 0 (the default): none, nothing reported.
   */
  promptCacheTokens?: number;
  /** Prompt tokens read a second (uncached ones only); the default reads prompts in no time. */
  prefillTokensPerSecond?: number;
  /** How the cached count is reported: OpenAI's `usage.prompt_tokens_details` or llama-server's `timings`. */
  cacheReport?: "usage" | "timings";
  /** false: a stream never carries `usage`, even when asked (some engines do not; SPEC §12.1). */
  streamUsage?: boolean;
  /**
   * Sent as `system_fingerprint` in every completion (OpenAI's field naming the backend that
   * answered): a bench tells which replica served a request by it. None when not given.
   */
  fingerprint?: string;
};

/** The knobs a test turns while the engine runs. */
export type EngineKnobs = {
  tokensPerSecond: number;
  replyTokens: number;
  /** Failures for the next requests, taken one per request in order. */
  failNext: Failure[];
  /**
   * Every inference request (a POST under /v1) fails this way while set, after `failNext`; the
   * health check still answers 200, as an engine whose weights loaded but cannot answer does.
   */
  failing: Failure | null;
  /** A stream breaks (connection destroyed) after this many tokens; null: never. */
  breakAfterTokens: number | null;
  /** Waits this long before answering at all. */
  delayMs: number;
};

/** An OpenAI-compatible engine on 127.0.0.1, on a port the OS picks. */
export class StandInEngine extends EventEmitter<{ request: [ReceivedRequest]; closed: [ReceivedRequest] }> {
  readonly received: ReceivedRequest[] = [];
  /** Requests whose client closed the connection before the answer ended. */
  readonly closedByClient: ReceivedRequest[] = [];
  readonly knobs: EngineKnobs;
  readonly model: string;
  /** Requests being answered now. */
  inFlight = 0;
  #held: Promise<void> | null = null;
  #server: Server;
  readonly #forgetful: boolean;
  readonly #cache: PromptCache | null;
  readonly #prefillPerSecond: number;
  readonly #cacheReport: "usage" | "timings";
  readonly #streamUsage: boolean;
  readonly #fingerprint: { system_fingerprint: string } | Record<string, never>;
  #url = "";

  private constructor(options: EngineOptions) {
    super();
    this.model = options.model ?? "stand-in";
    this.#forgetful = options.forgetful ?? false;
    this.#cache =
      (options.promptCacheTokens ?? 0) > 0 ? new PromptCache(options.promptCacheTokens ?? 0) : null;
    this.#prefillPerSecond = options.prefillTokensPerSecond ?? Number.POSITIVE_INFINITY;
    this.#cacheReport = options.cacheReport ?? "usage";
    this.#streamUsage = options.streamUsage ?? true;
    this.#fingerprint = options.fingerprint === undefined ? {} : { system_fingerprint: options.fingerprint };
    this.knobs = {
      tokensPerSecond: options.tokensPerSecond ?? 200,
      replyTokens: options.replyTokens ?? 8,
      failNext: [],
      failing: null,
      breakAfterTokens: null,
      delayMs: 0,
    };
    this.#server = createServer((req, res) => {
      void this.#answer(req, res).catch(() => res.destroy());
    });
  }

  static async start(options: EngineOptions = {}): Promise<StandInEngine> {
    const engine = new StandInEngine(options);
    engine.#server.listen(0, "127.0.0.1");
    await once(engine.#server, "listening");
    const { port } = engine.#server.address() as AddressInfo;
    engine.#url = `http://127.0.0.1:${port}`;
    return engine;
  }

  /** The base URL an agent would report as the replica's endpoint. */
  get url(): string {
    return this.#url;
  }

  /** Requests arriving from now on wait before answering until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    this.#held = new Promise<void>((resolve) => {
      release = () => {
        this.#held = null;
        resolve();
      };
    });
    return release;
  }

  /** Resolves with the `n`th request received (1-based), counting those already in. */
  async nth(n: number): Promise<ReceivedRequest> {
    while (this.received.length < n) await once(this, "request");
    return this.received[n - 1] as ReceivedRequest;
  }

  /** Resolves once `n` requests in all have had their connection closed by the client. */
  async closedCount(n: number): Promise<void> {
    while (this.closedByClient.length < n) await once(this, "closed");
  }

  async close(): Promise<void> {
    this.#held = null;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const received: ReceivedRequest = { method: req.method ?? "GET", path, headers: req.headers, body, text };
    if (!this.#forgetful) this.received.push(received);
    this.inFlight++;
    let finished = false;
    res.on("close", () => {
      this.inFlight--;
      if (!finished && !res.writableFinished) {
        if (!this.#forgetful) this.closedByClient.push(received);
        this.emit("closed", received);
      }
    });
    this.emit("request", received);
    const inference = req.method === "POST" && path.startsWith("/v1/");
    const failure = this.knobs.failNext.shift() ?? (inference ? this.knobs.failing : null) ?? undefined;
    if (failure === "drop") {
      finished = true;
      res.destroy();
      return;
    }
    if (failure)
      return json(
        res,
        failure,
        {
          error: {
            message: failure === 500 ? "the engine failed to answer" : "the engine is unavailable",
            code: failure,
          },
        },
        () => (finished = true),
      );
    if (this.knobs.delayMs > 0) await sleep(this.knobs.delayMs);
    if (this.#held) await this.#held;
    if (res.destroyed) return;
    const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const done = () => (finished = true);
    if (req.method === "GET" && path === "/health") return json(res, 200, { status: "ok" }, done);
    if (req.method === "GET" && path === "/v1/models")
      return json(
        res,
        200,
        { object: "list", data: [{ id: this.model, object: "model", created: 0, owned_by: "stand-in" }] },
        done,
      );
    if (req.method !== "POST") return json(res, 404, { error: { message: "not found" } }, done);
    if (path === "/v1/embeddings") return this.#embeddings(res, request, done);
    if (path === "/v1/chat/completions" || path === "/v1/completions")
      return this.#complete(res, request, path === "/v1/chat/completions", done);
    return json(res, 404, { error: { message: `no such endpoint: ${path}` } }, done);
  }

  #embeddings(res: ServerResponse, request: Record<string, unknown>, done: () => void): void {
    const input = request.input;
    const inputs = Array.isArray(input) ? input : [input];
    const data = inputs.map((item, index) => ({
      object: "embedding",
      index,
      embedding: Array.from({ length: 8 }, (_, i) => ((String(item).length + i) % 7) / 7),
    }));
    const tokens = inputs.reduce<number>((sum, item) => sum + wordsOf(item), 0);
    json(
      res,
      200,
      { object: "list", model: this.model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } },
      done,
    );
  }

  async #complete(res: ServerResponse, request: Record<string, unknown>, chat: boolean, done: () => void) {
    const maxTokens = typeof request.max_tokens === "number" ? request.max_tokens : Number.POSITIVE_INFINITY;
    const count = Math.min(this.knobs.replyTokens, maxTokens);
    const reply = Array.from({ length: count }, (_, i) => `word${i}`);
    const words = this.#cache || Number.isFinite(this.#prefillPerSecond) ? promptWords(request) : null;
    const promptTokens = words ? words.length : chat ? wordsOf(request.messages) : wordsOf(request.prompt);
    const cached = words && this.#cache ? this.#cache.read(words) : 0;
    const uncached = promptTokens - cached;
    if (Number.isFinite(this.#prefillPerSecond)) await sleep((uncached / this.#prefillPerSecond) * 1000);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: count,
      total_tokens: promptTokens + count,
      ...(this.#cache && this.#cacheReport === "usage"
        ? { prompt_tokens_details: { cached_tokens: cached } }
        : {}),
    };
    const timings =
      this.#cache && this.#cacheReport === "timings"
        ? { timings: { cache_n: cached, prompt_n: uncached } }
        : {};
    const id = `cmpl-${Math.random().toString(36).slice(2)}`;
    const base = { id, created: Math.floor(Date.now() / 1000), model: this.model, ...this.#fingerprint };
    const object = chat ? "chat.completion" : "text_completion";
    const tick = 1000 / this.knobs.tokensPerSecond;
    if (request.stream !== true) {
      await sleep(count * tick);
      const choice = chat
        ? { index: 0, message: { role: "assistant", content: reply.join(" ") }, finish_reason: "stop" }
        : { index: 0, text: reply.join(" "), finish_reason: "stop" };
      return json(res, 200, { ...base, object, choices: [choice], usage, ...timings }, done);
    }
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunkObject = chat ? "chat.completion.chunk" : "text_completion";
    const piece = (text: string | null, finish: string | null) => ({
      ...base,
      object: chunkObject,
      choices: [
        chat
          ? { index: 0, delta: text === null ? {} : { content: text }, finish_reason: finish }
          : { index: 0, text: text ?? "", finish_reason: finish },
      ],
    });
    if (chat)
      send({
        ...base,
        object: chunkObject,
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
      });
    for (let i = 0; i < reply.length; i++) {
      if (res.destroyed) return;
      if (this.knobs.breakAfterTokens !== null && i >= this.knobs.breakAfterTokens) {
        done();
        // What was written reaches the client first: the break comes after those tokens.
        await new Promise<void>((resolve) => res.write("", () => resolve()));
        res.destroy();
        return;
      }
      await sleep(tick);
      send(piece(i === 0 ? (reply[i] ?? "") : ` ${reply[i]}`, null));
    }
    send(piece(null, "stop"));
    const options = request.stream_options as { include_usage?: unknown } | undefined;
    if (options?.include_usage === true && this.#streamUsage)
      send({ ...base, object: chunkObject, choices: [], usage, ...timings });
    res.write("data: [DONE]\n\n");
    done();
    res.end();
  }
}

function json(res: ServerResponse, status: number, body: unknown, done: () => void): void {
  done();
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function wordsOf(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return text.split(/\s+/).filter(Boolean).length;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
