import type { IncomingHttpHeaders } from "node:http";
import { type Dispatcher, Pool } from "undici";
import { type EngineHead, engineHeadOf } from "./head";

/** Request headers worth passing to an engine; the client's credentials for llmgw are not among them. */
export const FORWARDED = ["content-type", "accept", "x-session-id", "user-agent"] as const;

/** What hears one engine call: its head, each chunk of its body, and how it ended. */
export interface EngineListener {
  onHead(head: EngineHead): void;
  /** A chunk of the body; false pauses the body until the call's `resume()`. */
  onChunk(chunk: Buffer): boolean;
  onEnd(): void;
  onFailed(err: Error): void;
}

/** undici's code for a body silent longer than its `bodyTimeout` (SPEC §7.5a engineIdleSeconds). */
export const isSilence = (err: unknown) =>
  typeof err === "object" && err !== null && (err as { code?: unknown }).code === "UND_ERR_BODY_TIMEOUT";

/**
 * One request to an engine, on undici's dispatcher interface: the head and the body's chunks go to
 * a listener as they come (no Readable, no AbortSignal, no web stream in between). Whoever holds
 * it may hand it to another listener, pause and resume the body, and abort it at any point.
 */
export class EngineCall implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #aborted: Error | null = null;
  #done = false;

  constructor(public listener: EngineListener) {}

  /** Ends the call (the listener hears `onFailed` with `reason`, unless it has ended already). */
  abort(reason: Error): void {
    if (this.#done || this.#aborted) return;
    this.#aborted = reason;
    this.#controller?.abort(reason);
  }

  resume(): void {
    this.#controller?.resume();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#aborted) controller.abort(this.#aborted);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    // An informational answer (1xx) is not the answer.
    if (status < 200) return;
    this.#controller = controller;
    this.listener.onHead(engineHeadOf(status, headers));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.listener.onChunk(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#done = true;
    this.listener.onEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.listener.onFailed(this.#aborted ?? err);
  }
}

type Target = { pool: Pool; prefix: string };

/**
 * Keep-alive connection pools, one per engine origin (SPEC §7.5): a request reuses a warm
 * connection instead of paying a TCP handshake before its first token.
 */
export class Upstreams {
  readonly #pools = new Map<string, Pool>();
  /** Per endpoint: its origin's pool and its path prefix (parsed once, not per request). */
  readonly #targets = new Map<string, Target>();

  /**
   * POSTs `body` to `<endpoint><path>` as it came, with `headers` (name, value, …). The head must
   * come within 5 minutes (an engine queues requests it has no slot for); after it, the body may
   * fall silent for at most `idleMs` between chunks.
   */
  send(
    endpoint: string,
    path: string,
    body: Uint8Array,
    headers: string[],
    call: EngineCall,
    idleMs: number,
  ): void {
    const { pool, prefix } = this.#target(endpoint);
    pool.dispatch(
      {
        method: "POST",
        path: prefix === "" ? path : `${prefix}${path}`,
        headers,
        body,
        headersTimeout: 300_000,
        bodyTimeout: idleMs,
      },
      call,
    );
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    this.#targets.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }

  #target(endpoint: string): Target {
    let target = this.#targets.get(endpoint);
    if (!target) {
      const base = new URL(endpoint);
      target = { pool: this.#pool(base.origin), prefix: base.pathname.replace(/\/+$/, "") };
      this.#targets.set(endpoint, target);
    }
    return target;
  }

  #pool(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: 64, keepAliveTimeout: 30_000 });
      this.#pools.set(origin, pool);
    }
    return pool;
  }
}
