import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch, type Model } from "@llmgw/domain";
import { describeOnEachDatabase, openTestStore } from "@llmgw/store/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { Control } from "../src/control/control";
import type { Deps } from "../src/deps";
import { openDeps } from "../src/openDeps";
import { modelInput } from "./harness";
import { freshDatabase } from "./multi-kit";

// SPEC §2.7 "lose nothing": many editors PATCH one model at once. Each request is applied or
// refused with 412, never half-applied or silently overwritten; the model ends as the audit log
// says it should.

const CLIENTS = 20;
const ROUNDS = 10;
/** Fields whose every value here is new, so each applied patch is a change (a version, an entry). */
const FIELDS = ["description", "maxOutput", "idleTimeoutSeconds"] as const;
type Field = (typeof FIELDS)[number];

function valueFor(field: Field, round: number, client: number): string | number {
  const n = round * CLIENTS + client + 1;
  if (field === "description") return `round ${round}, client ${client}`;
  return field === "maxOutput" ? 1000 + n : 60 + n;
}

describeOnEachDatabase("concurrent editors on $name", ({ url }) => {
  let deps: Deps;
  let app: ReturnType<typeof createApp>;
  let root = "";
  let drop = async () => {};

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "llmgw-concurrency-"));
    let env: NodeJS.ProcessEnv = {};
    if (url !== null) {
      const db = await freshDatabase(url);
      drop = db.drop;
      env = { DATABASE_URL: db.url };
    }
    const store = url === null ? await openTestStore() : undefined;
    deps = await openDeps(loadConfig({ dataDir: root }, env), { inMemory: true, store });
    app = createApp(deps, new Control(deps));
  });

  afterAll(async () => {
    await deps?.store.close();
    await drop();
    await rm(root, { recursive: true, force: true });
  });

  const patch = (name: string, version: number, body: Record<string, unknown>) =>
    app.request(`/api/v1/models/${name}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": `"${version}"` },
      body: JSON.stringify(body),
    });
  const current = async (name: string): Promise<Model> => {
    const model = await deps.store.models.get(name);
    if (!model) throw new Error(`${name} is gone`);
    return model;
  };

  it(`${CLIENTS} clients × ${ROUNDS} rounds: each PATCH is applied or 412, and nothing is lost`, async () => {
    const input = modelInput();
    expect(
      (
        await app.request("/api/v1/models", {
          method: "POST",
          body: JSON.stringify(input),
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(201);
    const initial = await current(input.name);

    const statuses = new Map<number, number>();
    const applied: { field: Field; value: string | number; version: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = (await current(input.name)).version;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          const field = FIELDS[client % FIELDS.length] ?? "description";
          const value = valueFor(field, round, client);
          // Everyone starts from the same version; a refused editor retries from the one the 412 shows.
          let version = start;
          for (let attempt = 0; attempt < 4 * CLIENTS; attempt++) {
            const res = await patch(input.name, version, { [field]: value });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            const body = (await res.json()) as { version?: number; current?: { version: number } };
            if (res.status === 200 && body.version !== undefined) {
              applied.push({ field, value, version: body.version });
              return;
            }
            if (res.status !== 412 || body.current === undefined) return;
            version = body.current.version;
          }
        }),
      );
    }

    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200]));
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 412)).toEqual([]);
    expect(applied).toHaveLength(CLIENTS * ROUNDS);

    const final = await current(input.name);
    const entries = (await deps.store.audit.list({ model: input.name, limit: 100_000 }))
      .filter((e) => e.action === "update")
      .sort((a, b) => a.id - b.id);
    // Every acknowledged change is in the audit, with the version it produced; versions are unique.
    for (const ack of applied) {
      expect(entries).toContainEqual(
        expect.objectContaining({ field: ack.field, after: ack.value, version: ack.version }),
      );
    }
    expect(new Set(entries.map((e) => e.version)).size).toBe(entries.length);
    expect(final.version).toBe(initial.version + applied.length);

    // Replaying the audit on the initial model gives the final one.
    let replayed = initial;
    for (const entry of entries) replayed = applyPatch(replayed, { [entry.field ?? ""]: entry.after }).next;
    const content = ({ version, updatedAt, updatedBy, ...rest }: Model) => rest;
    expect(content(final)).toEqual(content(replayed));
  }, 120_000);
});
