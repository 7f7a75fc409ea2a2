import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { Model } from "@llmgw/domain";
import type { Client } from "./client";
import { leaveDirect } from "./direct";
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

/** The engine's answer and its first body chunk (null: the body was empty). */
type Answer = { kind: "answer"; res: UpstreamResponse; first: Buffer | null };
type Attempt = Answer | { kind: "retry" };

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
  client: Client,
): Promise<Response> {
  const signal = client.signal;
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
    // Under Node the client's own controller aborts the upstream request (a client going away is
    // the only reason to); in process, one per attempt, linked to the client's signal.
    const own = client.controller === null;
    const upstream = client.controller ?? new AbortController();
    const abort = () => upstream.abort(signal.reason);
    if (own) {
      signal.addEventListener("abort", abort, { once: true });
      if (signal.aborted) abort();
    }
    const ended = parts.idle.began(model);
    const hold = () => {
      if (own) signal.removeEventListener("abort", abort);
      lease.release();
      ended();
    };
    const last = attempt > 0;
    const outcome = await tryReplica(parts, lease, client, request, upstream.signal, last).catch(
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
    return client.outgoing
      ? answerDirectly(flight, outcome, upstream, client.outgoing)
      : answer(flight, outcome, upstream);
  }
}

async function tryReplica(
  parts: ProxyParts,
  lease: Lease,
  client: Client,
  request: InferenceRequest,
  signal: AbortSignal,
  last: boolean,
): Promise<Attempt> {
  const unreachable = () =>
    new GatewayError(502, "upstream_unavailable", `the replica ${lease.replica.id} did not answer`);
  let res: UpstreamResponse;
  try {
    res = await parts.upstreams.send(lease.endpoint, client.path, request.bytes, client.headers, signal);
  } catch {
    if (signal.aborted) throw signal.reason;
    if (last) throw unreachable();
    return { kind: "retry" };
  }
  // An aborted or failed body reports it through the listeners below; unheard, it would crash the process.
  res.body.on("error", () => {});
  if ((res.status === 502 || res.status === 503) && !last) {
    res.body.destroy();
    return { kind: "retry" };
  }
  try {
    return { kind: "answer", res, first: await firstChunk(res.body) };
  } catch {
    if (signal.aborted) throw signal.reason;
    if (last) throw unreachable();
    return { kind: "retry" };
  }
}

/** The body's first chunk (null when it ended empty); the rest stays in the paused stream. */
function firstChunk(body: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", onError);
      body.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      stop();
      body.pause();
      resolve(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(null);
    };
    const onError = (err: unknown) => {
      stop();
      reject(err);
    };
    const onClose = () => {
      stop();
      reject(body.errored ?? new Error("the body closed before it ended"));
    };
    body.on("data", onData);
    body.on("end", onEnd);
    body.on("error", onError);
    body.on("close", onClose);
  });
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
]);
/** Set on an event stream's answer (SPEC §7.5), in place of the engine's own. */
const STREAM_HEADERS = new Set(["cache-control", "x-accel-buffering"]);

/** The engine's answer head as the client's: hop-by-hop headers dropped, an event stream's set. */
function headOf(res: UpstreamResponse, streaming: boolean): [string, string][] {
  const headers: [string, string][] = [];
  for (const name in res.headers) {
    const value = res.headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || (streaming && STREAM_HEADERS.has(name))) continue;
    if (typeof value === "string") headers.push([name, value]);
    else for (const v of value) headers.push([name, v]);
  }
  if (streaming) headers.push(["Cache-Control", "no-cache"], ["X-Accel-Buffering", "no"]);
  return headers;
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const FAILED_MID_ANSWER = Buffer.from(
  `data: ${JSON.stringify({
    error: {
      message: "the replica failed mid-answer",
      type: "server_error",
      code: "upstream_failed",
      param: null,
    },
  })}\n\n`,
);

/**
 * The engine's answer written to Node's response itself: the head once (with the headers every
 * middleware added), then each chunk as it comes, with the socket's backpressure; no web streams.
 */
function answerDirectly(
  flight: Flight,
  attempt: Answer,
  upstream: AbortController,
  out: ServerResponse,
): Response {
  const { res, first } = attempt;
  const body = res.body;
  const contentType = headerOf(res.headers["content-type"]);
  const streaming = contentType?.includes("text/event-stream") ?? false;
  const usage = new UsageReader(contentType);
  const done = (status: number) => flight.end(status, usage.usage);
  if (first !== null) {
    flight.firstByte();
    usage.push(first);
  }
  const declared = Number(headerOf(res.headers["content-length"]) ?? Number.NaN);
  const head = new Response(null, { status: res.status, headers: headOf(res, streaming) });
  return leaveDirect(out, {
    head,
    send(status: number, headers: OutgoingHttpHeaders) {
      let ended = false;
      const end = (chunk?: Buffer) => {
        if (ended) return;
        ended = true;
        if (!out.destroyed) {
          if (chunk) out.end(chunk);
          else out.end();
        }
      };
      // The whole answer came with its first chunk (its "end" may have been heard already): it goes
      // out in one write, with its length.
      const whole = first === null || body.readableEnded || declared === first.byteLength;
      if (whole) headers["content-length"] = first?.byteLength ?? 0;
      out.writeHead(status, headers);
      if (first === null || body.readableEnded) {
        end(first ?? undefined);
        done(res.status);
        return;
      }
      if (whole) end(first);
      else out.write(first);
      const resume = () => body.resume();
      body.on("data", (chunk: Buffer) => {
        usage.push(chunk);
        if (ended || out.destroyed) return;
        if (!out.write(chunk)) {
          body.pause();
          out.once("drain", resume);
        }
      });
      body.on("end", () => {
        end();
        done(res.status);
      });
      body.on("error", () => {
        if (upstream.signal.aborted) {
          done(CLIENT_GONE);
          return;
        }
        if (ended) {
          done(res.status);
          return;
        }
        if (streaming) end(FAILED_MID_ANSWER);
        else {
          ended = true;
          out.destroy();
        }
        done(res.status);
      });
      body.resume();
    },
    cancel(status: number) {
      upstream.abort();
      body.destroy();
      done(status);
    },
  });
}

/** The engine's answer as a web Response (in process): its body passed on as it comes. */
function answer(flight: Flight, attempt: Answer, upstream: AbortController): Response {
  const { res, first } = attempt;
  const contentType = headerOf(res.headers["content-type"]);
  const streaming = contentType?.includes("text/event-stream") ?? false;
  const usage = new UsageReader(contentType);
  const headers = new Headers(headOf(res, streaming));
  const done = (status: number) => flight.end(status, usage.usage);
  if (first !== null) {
    flight.firstByte();
    usage.push(first);
  }
  const chunks = res.body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first === null) {
          controller.close();
          done(res.status);
        } else controller.enqueue(first);
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
            controller.enqueue(new Uint8Array(FAILED_MID_ANSWER));
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
