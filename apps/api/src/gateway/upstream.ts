import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { Pool } from "undici";

export type UpstreamResponse = { status: number; headers: IncomingHttpHeaders; body: Readable };

/** Request headers worth passing to an engine; the client's credentials for llmgw are not among them. */
export const FORWARDED = ["content-type", "accept", "x-session-id", "x-request-id", "user-agent"] as const;

/** The forwarded request headers, by lower-case name (Node's `IncomingMessage.headers` is one). */
export type ForwardedHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The forwarded headers of a web Request (the in-process path). */
export function forwardedOf(headers: Headers): ForwardedHeaders {
  const out: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
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
   * POSTs `body` to `<endpoint><path>` as it came. Rejects on a connection failure before the
   * answer's head; `signal` aborts it at any point (the body stream then errors).
   */
  async send(
    endpoint: string,
    path: string,
    body: Uint8Array,
    headers: ForwardedHeaders,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const { pool, prefix } = this.#target(endpoint);
    const out: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = headers[name];
      if (typeof value === "string") out[name] = value;
      else if (value !== undefined) out[name] = value.join(", ");
    }
    out["content-type"] ??= "application/json";
    const res = await pool.request({
      method: "POST",
      path: `${prefix}${path}`,
      headers: out,
      body,
      signal,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
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
      // No timeout on the body: a long generation streams for minutes. Headers must come within 5 min
      // (an engine queues requests it has no slot for).
      pool = new Pool(origin, {
        connections: 64,
        headersTimeout: 300_000,
        bodyTimeout: 0,
        keepAliveTimeout: 30_000,
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }
}
