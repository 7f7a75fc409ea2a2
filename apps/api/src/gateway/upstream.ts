import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { Pool } from "undici";

export type UpstreamResponse = { status: number; headers: IncomingHttpHeaders; body: Readable };

/** Request headers worth passing to an engine; the client's credentials for llmgw are not among them. */
const FORWARDED = ["content-type", "accept", "x-session-id", "x-request-id", "user-agent"];

/**
 * Keep-alive connection pools, one per engine origin (SPEC §7.5): a request reuses a warm
 * connection instead of paying a TCP handshake before its first token.
 */
export class Upstreams {
  readonly #pools = new Map<string, Pool>();

  /**
   * POSTs `body` to `<endpoint><path>` as it came. Rejects on a connection failure before the
   * answer's head; `signal` aborts it at any point (the body stream then errors).
   */
  async send(
    endpoint: string,
    path: string,
    body: Uint8Array,
    headers: Headers,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const base = new URL(endpoint);
    const prefix = base.pathname.replace(/\/+$/, "");
    const out: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = headers.get(name);
      if (value !== null) out[name] = value;
    }
    out["content-type"] ??= "application/json";
    const res = await this.#pool(base.origin).request({
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
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
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
