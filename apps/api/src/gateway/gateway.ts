import { type Model, reservationOf, stoppedReason } from "@llmgw/domain";
import type { KnownToken } from "../auth/tokenBook";
import type { TokenBudgets } from "../budget/tokenBudgets";
import type { Deps } from "../deps";
import { CLIENT_GONE } from "./answer";
import { modelAsked } from "./catalogue";
import { type ClientAdmission, OPEN_ADMISSION } from "./clientAdmission";
import type { GatewayControl } from "./control";
import { CLIENT_WENT_AWAY, Dispatcher, type DispatchLimits, type GatewayDemand } from "./dispatcher";
import { asGatewayRefusal, unavailable } from "./errors";
import type { Exchange } from "./exchange";
import { Flight, TokenFlights } from "./flight";
import { IdleClock } from "./idle";
import { type GatewayMeter, type GatewayNow, NO_METER } from "./meter";
import { type ProxyParts, proxy } from "./proxy";
import { inferenceOf } from "./request";
import { Upstreams } from "./upstream";

export type GatewayOptions = {
  /** Counts requests and cold starts (prom-client, model.traffic); nothing by default. */
  meter?: GatewayMeter;
  /** A client token's models and limits; everything allowed by default. */
  admission?: ClientAdmission;
  /** Client tokens' budgets a day (SPEC §12.3); none by default. */
  budgets?: TokenBudgets | null;
};

/** Who sends a request, as the request path's authorization found them. */
export type Sender = {
  /** The token's name ("local" without tokens): the meter's `token` label. */
  actor: string;
  token: KnownToken | null;
  /** The request's id, passed to the engine as `X-Request-Id`. */
  requestId: string;
};

const MB = 1024 * 1024;

/**
 * This process's request path (SPEC §7): reads an inference request, resolves its model, admits
 * it for the token, waits for a slot (waking the model when it must) and streams the engine's
 * answer back. Builds nothing from `deps` until the first request, so creating the app stays free.
 */
export class Gateway {
  readonly meter: GatewayMeter;
  readonly admission: ClientAdmission;
  readonly budgets: TokenBudgets | null;
  /** Requests in flight per token: the one count (concurrency limits and the meter read it). */
  readonly tokens = new TokenFlights();
  #parts: ProxyParts | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly control: GatewayControl,
    options: GatewayOptions = {},
  ) {
    this.meter = options.meter ?? NO_METER;
    this.admission = options.admission ?? OPEN_ADMISSION;
    this.budgets = options.budgets ?? null;
  }

  /**
   * `POST /v1/…`: one inference request, answered by a replica of the model its body names, on the
   * exchange's sink. Resolves once the answer is on its way; throws the refusal (the app answers
   * it), having counted the request as ended.
   */
  async handle(ex: Exchange, sender: Sender): Promise<void> {
    const flight = new Flight(sender.actor, this.meter, this.tokens, this.deps.log);
    flight.clientToken = sender.token?.role === "client" ? sender.token.name : null;
    try {
      const { gateway } = this.deps.config;
      const body = await ex.readBody(gateway.bodyLimitMB * MB);
      const request = inferenceOf(body, ex.header("x-session-id"));
      const snap = await this.deps.world.snapshot();
      const model = modelAsked(snap, request.model);
      flight.model = model.name;
      flight.owner = model.owner;
      const stopped = stoppedReason(model);
      if (stopped !== null) throw unavailable("model_stopped", stopped, 60);
      // Keyed by the token's hash (a token made again under its name starts afresh).
      const key = sender.token?.sha256 ?? `open:${sender.actor}`;
      this.admission.admit(sender.token, model, this.tokens.of(key));
      flight.count(key);
      if (this.budgets !== null && sender.token !== null) {
        const reserve = reservationOf({
          bodyBytes: body.byteLength,
          maxTokens: request.maxTokens,
          maxCompletionTokens: request.maxCompletionTokens,
          maxOutput: model.maxOutput,
        });
        const reservation = await this.budgets.reserve(sender.token, reserve.total);
        // Settled with what the engine reported (a prompt it did not count, as estimated); a
        // request never sent used nothing.
        if (reservation !== null)
          flight.onEnd(({ usage, sent }) =>
            reservation.settle(
              sent ? (usage.promptTokens ?? reserve.prompt) + (usage.completionTokens ?? 0) : 0,
            ),
          );
      }
      await proxy(this.#started(), {
        flight,
        snap,
        model,
        request,
        ex,
        requestId: sender.requestId,
        idleSeconds: gateway.engineIdleSeconds,
      });
    } catch (err) {
      if (ex.gone || err === CLIENT_WENT_AWAY) {
        flight.end(CLIENT_GONE);
        throw CLIENT_WENT_AWAY;
      }
      flight.end(asGatewayRefusal(err).status);
      throw err;
    }
  }

  /** A refusal before the request reached `handle` (its authorization): counted all the same. */
  refused(status: number, actor: string): void {
    new Flight(actor, this.meter, this.tokens, this.deps.log).end(status);
  }

  /** What the gateway holds now, for the meter's gauges and traffic events. */
  now(): GatewayNow {
    const at = performance.now();
    const models: GatewayNow["models"] extends ReadonlyMap<string, infer V> ? Map<string, V> : never =
      new Map();
    for (const lane of this.#parts?.dispatcher.lanes.values() ?? []) {
      const head = lane.queue[0];
      models.set(lane.model, {
        inFlight: lane.inFlightTotal,
        queued: lane.queue.length,
        longestWaitMs: head ? at - head.arrivedAt : null,
        waking: lane.noneReady && lane.queue.length > 0,
      });
    }
    return { models, tokens: this.tokens.byName() };
  }

  /** This process's demand (SPEC §9.1): nothing until the first request built the dispatcher. */
  demand(): GatewayDemand {
    return this.#parts?.dispatcher.demandByModel() ?? { models: new Map(), replicas: new Map() };
  }

  async close(): Promise<void> {
    const parts = this.#parts;
    this.#parts = null;
    if (!parts) return;
    parts.dispatcher.close();
    parts.idle.close();
    await parts.upstreams.close();
  }

  #started(): ProxyParts {
    if (this.#parts) return this.#parts;
    const idle = new IdleClock(this.deps, this.control);
    const limits = (): DispatchLimits => ({
      maxQueue: this.deps.config.gateway.maxQueue,
      maxWaitMs: this.deps.config.gateway.maxWaitSeconds * 1000,
    });
    const dispatcher = new Dispatcher(this.deps, this.control, limits, this.meter, (model: Model) =>
      idle.keepAwake(model),
    );
    this.#parts = { dispatcher, upstreams: new Upstreams(), idle, world: this.deps.world };
    return this.#parts;
  }
}
