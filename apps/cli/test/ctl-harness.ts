import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, Control, createApp, type Deps, loadConfig, openDeps } from "@llmgw/api";
import { type AppType, answer, type Connection } from "@llmgw/client";
import type { Heartbeat, ModelInput, ModelView, Profile } from "@llmgw/domain";
import { makeModel, makeNode } from "@llmgw/domain/testing";
import { freshDatabase, openTestStore, TEST_STORE } from "@llmgw/store/testing";
import { hc } from "hono/client";
import { afterAll, beforeAll, expect } from "vitest";
import { type CtlIo, runCtl } from "../src/ctl";

// `llmgw ctl` against an in-process API: the app answers the typed client's requests through
// `app.request`, so a command runs end to end without a port. Nothing is reset between tests:
// every test makes its own names, owners and a node pool of its own (a label its models select),
// so one test's fleet never moves another's numbers.

export type App = ReturnType<typeof createApp>;
export type Run = { code: number; stdout: string; stderr: string };
type NodeFacts = Heartbeat["node"];
type ReplicaReport = NonNullable<Heartbeat["replicas"]>[number];

let sequence = 0;
/** A fresh name for this file's store: `owner-3`. */
export const fresh = (prefix: string) => `${prefix}-${++sequence}`;

/** A `POST /models` body (8 GB, 4 cores, always 1 by default); `need` overrides the profile. */
export function modelInput(overrides: Partial<ModelInput> & { need?: Partial<Profile> } = {}): ModelInput {
  const { need, ...rest } = overrides;
  const { origin, version, updatedAt, updatedBy, ...input } = makeModel(need ? { need } : {});
  return { ...input, ...rest };
}

/** Captures what a command writes, as `process.stdout` would receive it. */
export function capture(): { write(chunk: string): boolean; text(): string } {
  let text = "";
  return {
    write(chunk: string) {
      text += chunk;
      return true;
    },
    text: () => text,
  };
}

/** `declared`: names of models the configuration file declares (read-only through the API). */
export function useCtl(options: { declared?: string[] } = {}) {
  let state: { deps: Deps; control: Control; app: App; root: string; drop(): Promise<void> } | null = null;

  // The PostgreSQL project without a server never gets here: its runner reports every test of
  // the file as skipped before any hook runs (scripts/vitest-postgres-runner.ts).
  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), "llmgw-ctl-"));
    // The Vitest project's store: PGlite in memory, or a database of the file's own on PostgreSQL.
    const database = TEST_STORE === "postgres" ? await freshDatabase() : null;
    // An empty environment but that: the developer's LLMGW_* must not leak into a test.
    const loaded = loadConfig({ dataDir: root }, database ? { DATABASE_URL: database.url } : {});
    // Replicas come from the tests' heartbeats alone, so placement never moves the numbers.
    const config: Config = {
      ...loaded,
      scheduler: false,
      models: (options.declared ?? []).map(declaredModel),
    };
    // PGlite in memory from a migrated copy: initdb, seconds of CPU, once per run instead of per file.
    const store = database === null ? await openTestStore() : undefined;
    const deps = await openDeps(config, { inMemory: database === null, store });
    const drop = database?.drop ?? (async () => {});
    const control = new Control(deps);
    state = { deps, control, app: createApp(deps, control, { heartbeatsPer10s: 100_000 }), root, drop };
  });

  afterAll(async () => {
    await state?.deps.store.close();
    await state?.drop();
    if (state) await rm(state.root, { recursive: true, force: true });
    state = null;
  });

  function get() {
    if (!state) throw new Error("useCtl() is set up in beforeAll: use it inside a test");
    return state;
  }

  /** The dashboard's typed client on the same app, for seeding and for comparing with ctl's output. */
  const client = () => hc<AppType>("http://localhost/api/v1", { fetch: get().app.request });

  /** `llmgw ctl …args`; `fetch` replaces the app's (to watch or interfere with requests). */
  async function ctl(args: string[], io: Partial<CtlIo> = {}): Promise<Run> {
    const stdout = capture();
    const stderr = capture();
    const code = await runCtl(args, { fetch: get().app.request, env: {}, stdout, stderr, ...io });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  }

  async function addModel(overrides: Parameters<typeof modelInput>[0] = {}): Promise<ModelView> {
    const res = await client().models.$post({ json: modelInput(overrides) });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as ModelView;
  }

  /** One agent's heartbeat: a 64 GB, 16-core node (override `node`) reporting `replicas`. */
  async function addNode(node: Partial<NodeFacts> = {}, replicas: ReplicaReport[] = []): Promise<string> {
    const { state: _state, lastSeen, ...facts } = makeNode();
    const res = await client().agents.heartbeat.$post({ json: { node: { ...facts, ...node }, replicas } });
    expect(res.status, await res.clone().text()).toBe(200);
    return node.name ?? facts.name;
  }

  /**
   * A pool of its own: models select it by label, and its node (64 GB, 16 cores) reports with
   * `beat`, after the models whose replicas it runs exist.
   */
  function pool() {
    const selector = { pool: fresh("pool") };
    const node = fresh("node");
    const beat = (models: string[] = [], facts: Partial<NodeFacts> = {}) =>
      addNode({ name: node, labels: selector, ...facts }, models.map(replica));
    return { node, selector, beat };
  }

  return {
    ctl,
    client,
    addModel,
    addNode,
    pool,
    get app() {
      return get().app;
    },
    get control() {
      return get().control;
    },
    get deps() {
      return get().deps;
    },
  };
}

/** A ready replica of `model`, as an agent reports it. */
export function replica(model: string): ReplicaReport {
  return { id: fresh("replica"), model, state: "ready" };
}

/** A model as the configuration file declares it, every default filled. */
function declaredModel(name: string): Config["models"][number] {
  const { origin, version, updatedAt, updatedBy, ...model } = makeModel({ name });
  return model;
}

export async function json<T>(pending: Promise<{ json(): Promise<unknown> }>): Promise<T> {
  return (await (await pending).json()) as T;
}

/** Splits a table row on its column gaps (two spaces or more). */
export const cells = (line: string) => line.trim().split(/\s{2,}/);

/** The line of a table whose first cell is `first`. */
export function rowOf(output: string, first: string): string[] {
  const line = output.split("\n").find((l) => cells(l)[0] === first);
  expect(line, `no row for ${first} in:\n${output}`).toBeDefined();
  return cells(line ?? "");
}

/**
 * Catalogues `model` from its mirrored version `v1` by the version's serve plan, as the wizard
 * does: always one replica, on a node with a core and a gigabyte to spare.
 */
export async function serveMirrored(
  api: Connection["api"],
  model: string,
  contextLength: number,
): Promise<void> {
  const plan = await answer(
    api.mirror[":model"][":version"].plan.$get({ param: { model, version: "v1" }, query: {} }),
  );
  await answer(
    api.models.$post({
      json: {
        name: model,
        source: plan.source,
        contextLength,
        scaling: { min: 1, max: 1 },
        profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 1, cpuCores: 1 }],
      },
    }),
  );
}
