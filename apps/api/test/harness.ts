import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppType } from "@llmgw/client";
import { type ApiError, apiErrorSchema, type ModelInput } from "@llmgw/domain";
import { replicaOf } from "@llmgw/domain/testing";
import { openTestStore, TEST_STORE } from "@llmgw/store/testing";
import { hc } from "hono/client";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { createApp } from "../src/app";
import { type Config, loadConfig } from "../src/config";
import { Control } from "../src/control/control";
import type { Deps } from "../src/deps";
import { openDeps } from "../src/openDeps";

import { type heartbeat, modelInput } from "./factories";
import { freshDatabase } from "./multi-kit";

export { heartbeat, modelInput, replicaReport } from "./factories";

export type App = ReturnType<typeof createApp>;
export type Client = ReturnType<typeof hc<AppType>>;

/** What a test file works with: one store, one mirror directory and one app for the whole file. */
export interface Api {
  readonly deps: Deps;
  /** What the app controls (the scheduler's runtime, wakes, pulls), built here beside it. */
  readonly control: Control;
  readonly app: App;
  /** The typed client over `/api/v1`: a test stops compiling when the contract changes. */
  readonly client: Client;
  readonly config: Config;
  readonly mirrorDir: string;
}

/**
 * The configuration a test file runs with: `yaml` is written to a temporary `llmgw.yaml` and read
 * the way `llmgw serve --config` reads it; the other keys override the result.
 */
export type ApiOptions = Partial<Pick<Config, "models" | "quotas" | "classes" | "heartbeatSeconds">> & {
  yaml?: string;
  /**
   * "postgres": a fresh database on TEST_DATABASE_URL's server (dropped after the file), for the
   * tests whose point is what PostgreSQL does that PGlite's one connection cannot. Register those
   * blocks with describeOnPostgres (@llmgw/store/testing). By default the Vitest project's store
   * (`TEST_STORE`): every suite runs once on PGlite in memory and once on PostgreSQL.
   */
  database?: "pglite" | "postgres";
};

/**
 * Sets up the API for one test file: PGlite takes seconds to start, so the store is opened once
 * per file and emptied before every test (then seeded again as `openDeps` seeds it: classes,
 * quotas and declared models from the configuration). Use the returned object inside tests.
 */
export function useApi(options: ApiOptions = {}): Api {
  let current: Api | null = null;
  let root: string | null = null;
  let drop = async () => {};
  // The PostgreSQL project without a server never gets here: its runner reports every test of
  // the file as skipped before any hook runs (scripts/vitest-postgres-runner.ts).

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "llmgw-api-"));
    const { yaml, database = TEST_STORE, ...overrides } = options;
    let file: string | undefined;
    if (yaml !== undefined) {
      file = join(root, "llmgw.yaml");
      await writeFile(file, yaml);
    }
    // An empty environment: the developer's LLMGW_* or DATABASE_URL must not leak into a test.
    const env: NodeJS.ProcessEnv = {};
    if (database === "postgres") {
      const fresh = await freshDatabase();
      drop = fresh.drop;
      env.DATABASE_URL = fresh.url;
    }
    const config: Config = { ...loadConfig({ config: file, dataDir: root }, env), ...overrides };
    // PGlite in memory from a migrated copy: initdb, seconds of CPU, once per run instead of per file.
    const store = database === "pglite" ? await openTestStore() : undefined;
    const deps = await openDeps(config, { inMemory: database === "pglite", store });
    // Suites beat far faster than an agent; the limit itself is tested with its default.
    const control = new Control(deps);
    const app = createApp(deps, control, { heartbeatsPer10s: 100_000 });
    const client = hc<AppType>("http://localhost/api/v1", { fetch: app.request });
    current = { deps, control, app, client, config, mirrorDir: config.mirror.dir };
  });

  beforeEach(async () => {
    const { deps, control, config, mirrorDir } = get();
    await deps.store.reset();
    await deps.store.transaction(async (tx) => {
      await tx.classes.seed(config.classes ?? []);
      await tx.quotas.seed(config.quotas);
      await tx.models.syncDeclared(config.models, { by: "config" });
    });
    deps.world.invalidate();
    deps.now = () => new Date();
    deps.world.lastSeen.clear();
    control.wakes.clear();
    await rm(mirrorDir, { recursive: true, force: true });
    await mkdir(mirrorDir, { recursive: true });
    await deps.mirror.scan();
  });

  afterAll(async () => {
    await current?.deps.store.close();
    await drop();
    if (root) await rm(root, { recursive: true, force: true });
    current = null;
  });

  function get(): Api {
    if (!current) throw new Error("useApi() is set up in beforeAll: use it inside a test or hook");
    return current;
  }

  return {
    get deps() {
      return get().deps;
    },
    get control() {
      return get().control;
    },
    get app() {
      return get().app;
    },
    get client() {
      return get().client;
    },
    get config() {
      return get().config;
    },
    get mirrorDir() {
      return get().mirrorDir;
    },
  };
}

/** The one error shape (SPEC §3), checked: fails the test when a refusal answers in another shape. */
export async function errorOf(
  res: { status: number; json(): Promise<unknown> },
  status: number,
): Promise<ApiError["error"]> {
  const body: unknown = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status });
  return apiErrorSchema.parse(body).error;
}

/** `POST /models`, which the test expects to be a 201: the created model's view. */
export async function createOk(api: Api, input: ModelInput = modelInput()) {
  const res = await api.client.models.$post({ json: input });
  expect(res.status).toBe(201);
  return res.json();
}

/** `POST /agents/heartbeat`, which the test expects to be a 200: the reply (what to run). */
export async function beatOk(api: Api, body: ReturnType<typeof heartbeat>) {
  const res = await api.client.agents.heartbeat.$post({ json: body });
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * The catalogue's replicas an agent is about to report, put on its node as the scheduler would
 * have placed them (starting, holding the profile's need). An agent's own replicas of catalogue
 * models are unmanaged (SPEC §4), so a test that builds a fleet of the catalogue's replicas
 * through heartbeats places them first. Replicas of models not in the catalogue are left alone.
 */
export async function placeReported(api: Api, body: ReturnType<typeof heartbeat>): Promise<void> {
  await api.deps.store.transaction(async (tx) => {
    for (const reported of body.replicas) {
      const model = await tx.models.get(reported.model);
      if (!model) continue;
      const known = (await tx.replicas.nodesOf([reported.id])).has(reported.id);
      if (!known) {
        await tx.replicas.upsert(
          replicaOf(model, {
            id: reported.id,
            node: body.node.name,
            state: "starting",
            startedAt: new Date().toISOString(),
          }),
        );
      }
    }
  });
  api.deps.world.invalidate();
}

/** `beatOk` for replicas the scheduler placed (see `placeReported`). */
export async function beatPlaced(api: Api, body: ReturnType<typeof heartbeat>) {
  await placeReported(api, body);
  return beatOk(api, body);
}
