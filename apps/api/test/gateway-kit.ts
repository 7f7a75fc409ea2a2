import type { Model, ModelInput, ModelView } from "@llmgw/domain";
import { replicaOf } from "@llmgw/domain/testing";
import { type EngineOptions, StandInEngine } from "@llmgw/simulation";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createApp, gatewayOf, nodeRequestPathOf, usageTallyOf } from "../src/app";
import type { ClientAdmission } from "../src/gateway/clientAdmission";
import type { GatewayDemand } from "../src/gateway/dispatcher";
import type { GatewayMeter, GatewayNow, RequestOutcome } from "../src/gateway/meter";
import { listen } from "../src/listen";
import { UsageTally } from "../src/usage/tally";
import {
  type Api,
  beatOk,
  createOk,
  heartbeat,
  modelInput,
  placeReported,
  replicaReport,
  useApi,
} from "./harness";

// The request path as clients meet it: the app on a real port, the official `openai` SDK as the
// client, and stand-in engines registered as ready replicas the way an agent reports them.

export type GatewayTest = {
  readonly api: Api;
  /** The server's base URL (http://127.0.0.1:port). */
  readonly url: string;
  /** An `openai` client of this server (no retries: a test sees every answer). */
  client(options?: { apiKey?: string; maxRetries?: number }): OpenAI;
  /** What the gateway holds now (queued and in flight per model), as the meter reads it. */
  now(): GatewayNow;
  /** What the gateway holds as the autoscaler reads it (SPEC §9.1). */
  demand(): GatewayDemand;
  /** What the gateway counted for SPEC §12.1 and has not written yet. */
  usage(): UsageTally;
  /** What the meter was told, in order. */
  readonly outcomes: RequestOutcome[];
  readonly coldStarts: { model: string; ms: number }[];
  /** What the gateway asks of a client token; open unless a test sets it. */
  admission: ClientAdmission;
  /** A stand-in engine, closed after the test. */
  engine(options?: EngineOptions): Promise<StandInEngine>;
  /** A model made through the API, ondemand unless `scaling` says otherwise. */
  model(input?: Parameters<typeof modelInput>[0]): Promise<Model>;
  /** Replicas of `model` on one node, reported ready by its agent with these engines' endpoints. */
  ready(model: Pick<Model, "name">, engines: Engine[], node?: string): Promise<string[]>;
};

/** An engine as a replica's endpoint: a stand-in, or a real one started as a process. */
type Engine = Pick<StandInEngine, "url">;

const OPEN: ClientAdmission = { admit: () => {} };

/** `yaml` configures tokens; then `adminToken` is the one the kit makes models with. */
export function useGateway(options: { yaml?: string; adminToken?: string } = {}): GatewayTest {
  const api = useApi(options.yaml === undefined ? {} : { yaml: options.yaml });
  const outcomes: RequestOutcome[] = [];
  const coldStarts: { model: string; ms: number }[] = [];
  const engines: StandInEngine[] = [];
  let url = "";
  let close = async () => {};
  let now = (): GatewayNow => ({ models: new Map(), tokens: new Map() });
  let demand = (): GatewayDemand => ({ models: new Map(), replicas: new Map() });
  let tally = new UsageTally(() => Date.now());
  const test: GatewayTest = {
    usage: () => tally,
    api,
    get url() {
      return url;
    },
    now: () => now(),
    demand: () => demand(),
    outcomes,
    coldStarts,
    admission: OPEN,
    client: (o = {}) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey: o.apiKey ?? "unused", maxRetries: o.maxRetries ?? 0 }),
    async engine(o = {}) {
      const engine = await StandInEngine.start(o);
      engines.push(engine);
      return engine;
    },
    async model(input = {}) {
      const body = modelInput({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 900 }, ...input });
      const view = options.adminToken
        ? await createAs(api, options.adminToken, body)
        : await createOk(api, body);
      const { replicas, headroom, quota, mode, ...model } = view;
      return model as Model;
    },
    async ready(model, list, node = `gw-node-${Math.random().toString(36).slice(2, 8)}`) {
      const beat = heartbeat({
        node: { name: node, memoryGB: 512, cpuCount: 256 },
        replicas: list.map((e) => replicaReport({ model: model.name, endpoint: e.url })),
      });
      // With tokens, an agent token is bound to one node: the replicas are stored as its beat would.
      if (options.adminToken) await storeReady(api, model, beat.node.name, list);
      else {
        await placeReported(api, beat);
        await beatOk(api, beat);
      }
      return beat.replicas.map((r) => r.id);
    },
  };
  const meter: GatewayMeter = {
    finished: (outcome) => outcomes.push(outcome),
    coldStart: (model, ms) => coldStarts.push({ model, ms }),
  };

  beforeAll(async () => {
    const admission: ClientAdmission = { admit: (token, model) => test.admission.admit(token, model) };
    const app = createApp(api.deps, api.control, {
      heartbeatsPer10s: 100_000,
      gateway: { meter, admission },
    });
    // As `llmgw serve` listens: a plain /v1 target goes to the request path's fast path.
    const { server: http, url: at } = await listen(
      { host: "127.0.0.1", port: 0 },
      app.fetch,
      nodeRequestPathOf(app),
    );
    url = at;
    tally = usageTallyOf(app) ?? tally;
    const gateway = gatewayOf(app);
    if (gateway) {
      now = () => gateway.now();
      demand = () => gateway.demand();
    }
    close = async () => {
      await gatewayOf(app)?.close();
      await new Promise<void>((resolve) => {
        (http as unknown as { closeAllConnections(): void }).closeAllConnections();
        http.close(() => resolve());
      });
    };
  });
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.close()));
    outcomes.length = 0;
    coldStarts.length = 0;
    test.admission = OPEN;
  });
  afterAll(() => close());
  return test;
}

async function createAs(api: Api, token: string, body: ModelInput): Promise<ModelView> {
  const res = await api.app.request("/api/v1/models", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /models: ${res.status} ${await res.text()}`);
  return (await res.json()) as ModelView;
}

async function storeReady(api: Api, model: Pick<Model, "name">, node: string, engines: Engine[]) {
  await api.deps.store.transaction(async (tx) => {
    const stored = await tx.models.get(model.name);
    if (!stored) throw new Error(`no model ${model.name}`);
    for (const engine of engines)
      await tx.replicas.upsert(
        replicaOf(stored, {
          id: `r-${Math.random().toString(36).slice(2, 10)}`,
          node,
          state: "ready",
          endpoint: engine.url,
          startedAt: new Date().toISOString(),
        }),
      );
  });
  api.deps.world.invalidate();
}

/** Resolves once `check` holds, looking again on every turn of the event loop (no fixed sleeps). */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
