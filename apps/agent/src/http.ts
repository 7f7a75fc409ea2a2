import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

// The agent's HTTP: heartbeats, weights and engines' health, over node:http. Not fetch: fetch (and
// Headers, Request, Response, which Hono's client builds) loads undici and compiles its
// WebAssembly parser, about 11 MB of a process the agent keeps at a few tens (`pnpm bench`,
// "agent memory idle"), on every node of the fleet.

/** An answer's head, and its body to read or to drop. */
export type Answer = {
  status: number;
  /** A response header, lower-case name; null when absent. */
  header(name: string): string | null;
  /** The body as it comes (a node stream). */
  body: IncomingMessage;
  /** The whole body as text. */
  text(): Promise<string>;
  /** Reads the body to its end and throws it away: the connection goes back to the pool. */
  drop(): void;
};

export type RequestInit = {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A JSON body: sent as application/json. */
  json?: unknown;
  signal?: AbortSignal;
};

/** One request to an http(s) URL; rejects when no answer comes (refused, reset, aborted). */
export function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const body = init.json === undefined ? null : Buffer.from(JSON.stringify(init.json));
  const headers: Record<string, string> = { ...init.headers };
  if (body) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: init.method ?? "GET", headers, ...(init.signal ? { signal: init.signal } : {}) },
      (res) => {
        resolve({
          status: res.statusCode ?? 0,
          header: (name) => {
            const value = res.headers[name];
            return Array.isArray(value) ? value.join(", ") : (value ?? null);
          },
          body: res,
          text: async () => {
            const chunks: Buffer[] = [];
            for await (const chunk of res) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks).toString("utf8");
          },
          drop: () => {
            res.resume();
          },
        });
      },
    );
    req.once("error", reject);
    req.end(body ?? undefined);
  });
}

/** Why a request got no answer, in a few words: the socket's error (ECONNREFUSED…), or the abort. */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === "AbortError" || err.name === "TimeoutError") return "no answer in time";
  return err.message;
}
