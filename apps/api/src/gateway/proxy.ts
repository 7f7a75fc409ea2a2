import type { Model } from "@llmgw/domain";
import type { Dispatcher } from "./dispatcher";
import { GatewayError } from "./errors";
import type { Flight } from "./flight";
import type { IdleClock } from "./idle";
import type { Lease } from "./lanes";
import type { InferenceRequest } from "./request";
import type { UpstreamResponse, Upstreams } from "./upstream";
import { UsageReader } from "./usage";

export type ProxyParts = { dispatcher: Dispatcher; upstreams: Upstreams; idle: IdleClock };

/** The client went away: there is nobody to answer (the status the meter records). */
export const CLIENT_GONE = 499;

type Attempt =
  | {
      kind: "answer";
      res: UpstreamResponse;
      chunks: AsyncIterator<Uint8Array>;
      first: IteratorResult<Uint8Array>;
    }
  | { kind: "retry" };

/**
 * Sends one request to a ready replica of `model` and streams the answer back chunk by chunk
 * (SPEC §7.5). A connection failure, or a 502/503 from the engine, before any byte reached the
 * client is retried once on another ready replica (or queued again); after the first byte a
 * failure ends an event stream with a `data: {"error": …}` event. The client going away aborts
 * the upstream request at once.
 */
export async function proxy(
  parts: ProxyParts,
  flight: Flight,
  model: Model,
  request: InferenceRequest,
  raw: Request,
): Promise<Response> {
  const signal = raw.signal;
  const url = new URL(raw.url);
  const path = `${url.pathname}${url.search}`;
  let avoid: string | null = null;
  for (let attempt = 0; ; attempt++) {
    const lease = await parts.dispatcher.acquire(
      model,
      {
        arrivedAt: flight.arrivedAt,
        sessionKey: request.sessionKey,
        avoid,
        signal,
      },
      attempt > 0,
    );
    flight.sent();
    const upstream = new AbortController();
    const abort = () => upstream.abort(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    if (signal.aborted) abort();
    const ended = parts.idle.began(model);
    const hold = () => {
      signal.removeEventListener("abort", abort);
      lease.release();
      ended();
    };
    const last = attempt > 0;
    const outcome = await tryReplica(parts, lease, path, request, raw.headers, upstream.signal, last).catch(
      (err: unknown) => {
        hold();
        throw err;
      },
    );
    if (outcome.kind === "retry") {
      hold();
      if (signal.aborted) throw signal.reason;
      avoid = lease.replica.id;
      continue;
    }
    flight.onEnd(hold);
    return answer(flight, outcome, upstream);
  }
}

async function tryReplica(
  parts: ProxyParts,
  lease: Lease,
  path: string,
  request: InferenceRequest,
  headers: Headers,
  signal: AbortSignal,
  last: boolean,
): Promise<Attempt> {
  const unreachable = () =>
    new GatewayError(502, "upstream_unavailable", `the replica ${lease.replica.id} did not answer`);
  let res: UpstreamResponse;
  try {
    res = await parts.upstreams.send(lease.endpoint, path, request.bytes, headers, signal);
  } catch {
    if (signal.aborted) throw signal.reason;
    if (last) throw unreachable();
    return { kind: "retry" };
  }
  // An aborted or failed body reports it through the iterator below; unheard, it would crash the process.
  res.body.on("error", () => {});
  if ((res.status === 502 || res.status === 503) && !last) {
    res.body.destroy();
    return { kind: "retry" };
  }
  const chunks = res.body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  try {
    return { kind: "answer", res, chunks, first: await chunks.next() };
  } catch {
    if (signal.aborted) throw signal.reason;
    if (last) throw unreachable();
    return { kind: "retry" };
  }
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
]);

/** The engine's answer as the client's: its status and headers, its body passed on as it comes. */
function answer(
  flight: Flight,
  attempt: Extract<Attempt, { kind: "answer" }>,
  upstream: AbortController,
): Response {
  const { res, chunks, first } = attempt;
  const contentType = headerOf(res.headers["content-type"]);
  const streaming = contentType?.includes("text/event-stream") ?? false;
  const usage = new UsageReader(contentType);
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (HOP_BY_HOP.has(name) || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if (streaming) {
    headers.set("Cache-Control", "no-cache");
    headers.set("X-Accel-Buffering", "no");
  }
  const done = (status: number) => flight.end(status, usage.usage);
  if (!first.done) {
    flight.firstByte();
    usage.push(first.value);
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first.done) {
          controller.close();
          done(res.status);
        } else controller.enqueue(first.value);
      },
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) {
            controller.close();
            done(res.status);
            return;
          }
          usage.push(next.value);
          controller.enqueue(next.value);
        } catch (err) {
          if (upstream.signal.aborted) {
            done(CLIENT_GONE);
            return;
          }
          if (streaming) {
            const event = {
              error: {
                message: "the replica failed mid-answer",
                type: "server_error",
                code: "upstream_failed",
                param: null,
              },
            };
            controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(event)}\n\n`));
            controller.close();
          } else controller.error(err);
          done(res.status);
        }
      },
      cancel() {
        upstream.abort();
        void chunks.return?.().catch(() => {});
        done(CLIENT_GONE);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: res.status, headers });
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
