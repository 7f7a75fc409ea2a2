import type { IncomingMessage } from "node:http";
import { modeOf } from "@llmgw/domain";
import type { Context } from "hono";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError } from "../errors";
import { type ClientAdmission, OPEN_ADMISSION } from "./admission";
import { modelNamed } from "./catalogue";
import { type Client, nodeClient, webClient } from "./client";
import { acceptsDirect, nodeResponseOf } from "./direct";
import { Dispatcher, type GatewayDemand } from "./dispatcher";
import { GatewayError, unavailable } from "./errors";
import { Flight } from "./flight";
import { IdleClock } from "./idle";
import { type GatewayMeter, type GatewayNow, NO_METER } from "./meter";
import { CLIENT_GONE, proxy } from "./proxy";
import { Upstreams } from "./upstream";

export type GatewayOptions = {
  /** Counts requests and cold starts (prom-client, model.traffic); nothing by default. */
  meter?: GatewayMeter;
  /** A client token's models and limits; everything allowed by default. */
  admission?: ClientAdmission;
};

/**
 * This process's request path (SPEC §7): reads an inference request, resolves its model, admits
 * it for the token, waits for a slot (waking the model when it must) and streams the engine's
 * answer back. Builds nothing from `deps` until the first request, so creating the app stays free.
 */
export class Gateway {
  readonly meter: GatewayMeter;
  readonly admission: ClientAdmission;
  readonly #tokens = new Map<string, number>();
  #parts: { dispatcher: Dispatcher; upstreams: Upstreams; idle: IdleClock } | null = null;

  constructor(
    private readonly deps: Deps,
    options: GatewayOptions = {},
  ) {
    this.meter = options.meter ?? NO_METER;
    this.admission = options.admission ?? OPEN_ADMISSION;
  }

  /** `POST /v1/…`: one inference request, answered by a replica of the model its body names. */
  async handle(c: Context<AppEnv>): Promise<Response> {
    const flight = new Flight(c.get("actor"), this.meter, this.#tokens, this.deps.log);
    const client = clientOf(c);
    try {
      const { gateway } = this.deps.config;
      const request = await client.read(gateway.bodyLimitMB * 1024 * 1024);
      const model = modelNamed(await this.deps.world.snapshot(), request.model);
      flight.model = model.name;
      if (modeOf(model.scaling) === "stopped")
        throw unavailable("model_stopped", `${model.name} is stopped: an operator must start it`, 60);
      flight.onEnd(this.admission.admit(c.get("token"), model));
      return await proxy(this.#started(), flight, model, request, client);
    } catch (err) {
      if (client.signal.aborted) {
        flight.end(CLIENT_GONE);
        return new Response(null, { status: CLIENT_GONE });
      }
      flight.end(err instanceof GatewayError || err instanceof AppError ? err.status : 500);
      throw err;
    }
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
    return { models, tokens: new Map(this.#tokens) };
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

  #started() {
    if (this.#parts) return this.#parts;
    const idle = new IdleClock(this.deps);
    const limits = () => ({
      maxQueue: this.deps.config.gateway.maxQueue,
      maxWaitMs: this.deps.config.gateway.maxWaitSeconds * 1000,
    });
    const dispatcher = new Dispatcher(this.deps, limits, this.meter, (model) => idle.keepAwake(model));
    this.#parts = { dispatcher, upstreams: new Upstreams(), idle };
    return this.#parts;
  }
}

/**
 * Under a real listener (@hono/node-server, `sendDirectly` around the request path) the request is
 * read from Node's request and answered on Node's response; never the web Request's body or signal.
 */
function clientOf(c: Context<AppEnv>): Client {
  const outgoing = nodeResponseOf(c.env);
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (outgoing && acceptsDirect(outgoing) && typeof incoming === "object" && incoming !== null)
    return nodeClient(c.req.url, incoming as IncomingMessage, outgoing);
  return webClient(c.req.raw);
}
