import type { Model } from "@llmgw/domain";
import { REVISION_COUNTS } from "../rollout/traffic";
import type { Snapshot, World } from "../world";
import { AnswerWriter, type Held } from "./answer";
import { CLIENT_WENT_AWAY, type Dispatcher } from "./dispatcher";
import { GatewayError } from "./errors";
import type { Exchange } from "./exchange";
import type { Flight } from "./flight";
import type { EngineHead } from "./head";
import type { IdleClock } from "./idle";
import type { Lease } from "./lanes";
import type { InferenceRequest } from "./request";
import { EngineCall, type EngineListener, FORWARDED, isSilence, type Upstreams } from "./upstream";

export type ProxyParts = { dispatcher: Dispatcher; upstreams: Upstreams; idle: IdleClock; world: World };

/** One request to proxy: who asked, for what, and where its answer goes. */
export type Proxied = {
  flight: Flight;
  snap: Snapshot;
  model: Model;
  request: InferenceRequest;
  ex: Exchange;
  /** The request's id, passed to the engine as `X-Request-Id`. */
  requestId: string;
  /** Seconds an engine may stay silent after its head (gateway.engineIdleSeconds). */
  idleSeconds: number;
};

/** Why an attempt is tried again: the engine said 502/503 before any byte. */
const TRY_AGAIN = new Error("the replica answered 502/503");

/**
 * Sends one request to a ready replica of `model` and hands its answer to the one writer (SPEC
 * §7.5). A connection failure, or a 502/503 from the engine, before any byte reached the client
 * is retried once on another ready replica (or queued again); an engine silent after its head for
 * `idleSeconds` is a 504. Resolves once the answer is on its way (or throws the refusal).
 */
export async function proxy(parts: ProxyParts, job: Proxied): Promise<void> {
  const { flight, model, request, ex } = job;
  let { snap } = job;
  let avoid: string | null = null;
  for (let attempt = 0; ; attempt++) {
    const last = attempt > 0;
    const taking = parts.dispatcher.acquire(
      model,
      snap,
      {
        arrivedAt: flight.arrivedAt,
        sessionKey: request.sessionKey,
        beginning: request.beginning,
        avoid,
        client: ex,
      },
      last,
    );
    const lease = taking instanceof Promise ? await taking : taking;
    flight.sent();
    const ended = parts.idle.began(model);
    const hold = () => {
      lease.release();
      ended();
    };
    const holding = new Holding(last);
    const call = new EngineCall(holding);
    holding.call = call;
    const stopListening = ex.onGone(() => call.abort(CLIENT_WENT_AWAY));
    try {
      parts.upstreams.send(
        lease.endpoint,
        ex.path,
        request.bytes,
        headersFor(ex, job.requestId),
        call,
        job.idleSeconds * 1000,
      );
    } catch (err) {
      // Not sent at all (an endpoint the pool cannot take): as a connection that failed.
      holding.onFailed(err instanceof Error ? err : new Error(String(err)));
    }
    const held = await holding.settled;
    stopListening();
    // SPEC §11.4: what each revision answered, for a rollout's error ratio.
    REVISION_COUNTS.sent(model, lease.replica, engineFailed(held));
    if (held.kind === "answer") {
      flight.onEnd(hold);
      new AnswerWriter(flight, ex, call, held.head, job.idleSeconds, request.hideUsage).start(held.held);
      return;
    }
    hold();
    if (ex.gone) throw CLIENT_WENT_AWAY;
    if (held.kind === "failed") throw refusalFor(held.error, lease, job.idleSeconds);
    avoid = lease.replica.id;
    snap = await parts.world.snapshot();
  }
}

/** An engine 5xx or no answer at all: a failure of the replica's revision. */
function engineFailed(held: Settled): boolean {
  if (held.kind !== "answer") return !(held.kind === "failed" && held.error === CLIENT_WENT_AWAY);
  return held.head.status >= 500;
}

function refusalFor(err: Error, lease: Lease, idleSeconds: number): GatewayError {
  if (isSilence(err))
    return new GatewayError({
      code: "upstream_timeout",
      message: `the replica ${lease.replica.id} sent its head and then nothing for ${idleSeconds} s`,
    });
  return new GatewayError({
    code: "upstream_unavailable",
    message: `the replica ${lease.replica.id} did not answer`,
  });
}

/** The request's headers for the engine (name, value, …): the forwarded ones and its id. */
function headersFor(ex: Exchange, requestId: string): string[] {
  const headers: string[] = ["x-request-id", requestId];
  let typed = false;
  for (const name of FORWARDED) {
    const value = ex.header(name);
    if (value === undefined) continue;
    headers.push(name, value);
    if (name === "content-type") typed = true;
  }
  if (!typed) headers.push("content-type", "application/json");
  return headers;
}

type Settled =
  | { kind: "answer"; head: EngineHead; held: Held }
  | { kind: "retry" }
  | { kind: "failed"; error: Error };

/**
 * Hears an engine call until its answer can be handed over: its head and first chunk (or its end),
 * so a connection that drops before any byte is still retried. What comes meanwhile is kept in
 * `held`, which the writer reads when it takes over.
 */
class Holding implements EngineListener {
  call: EngineCall | null = null;
  readonly settled: Promise<Settled>;
  readonly held: Held = { chunks: [], ended: false, failed: null };
  #settle: (settled: Settled) => void = () => {};
  #head: EngineHead | null = null;
  #answered = false;

  constructor(
    /** The last attempt: a 502/503 is the client's answer, not a reason to try again. */
    private readonly last: boolean,
  ) {
    this.settled = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  onHead(head: EngineHead): void {
    this.#head = head;
    if ((head.status === 502 || head.status === 503) && !this.last) this.call?.abort(TRY_AGAIN);
  }

  onChunk(chunk: Buffer): boolean {
    this.held.chunks.push(chunk);
    this.#answer();
    return true;
  }

  onEnd(): void {
    this.held.ended = true;
    this.#answer();
  }

  onFailed(err: Error): void {
    // After the first chunk the answer is the writer's: its failure is the writer's to report.
    if (this.#answered) {
      this.held.failed = err;
      return;
    }
    const retry = err === TRY_AGAIN || (!this.last && !isSilence(err) && err !== CLIENT_WENT_AWAY);
    this.#settle(retry ? { kind: "retry" } : { kind: "failed", error: err });
  }

  #answer(): void {
    if (this.#answered || !this.#head) return;
    this.#answered = true;
    this.#settle({ kind: "answer", head: this.#head, held: this.held });
  }
}
