import type { Model } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { NameTaken, VersionConflict } from "../src/errors";
import type { DeclaredModel } from "../src/repos/models";
import { backendFor, useStore } from "./backends";
import { aModel, aProfile } from "./factories";
import { describeOnEachDatabase } from "./testStore";

const declared = (overrides: Partial<Model> = {}): DeclaredModel => {
  const { origin: _o, version: _v, updatedAt: _a, updatedBy: _b, ...rest } = aModel(overrides);
  return rest;
};

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected a refusal"),
    (err: unknown) => err,
  );
}

describeOnEachDatabase("models on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  it("stores a model whole and lists by name", async () => {
    const b = aModel({
      name: "b-model",
      aliases: ["b1"],
      profiles: [aProfile({ nodeSelector: { gpu: "a100" } }), aProfile({ name: "gpu", gpus: 1 })],
    });
    const a = aModel({ name: "a-model" });
    expect(await store.models.insert(b)).toEqual(b);
    await store.models.insert(a);
    expect(await store.models.get(b.name)).toEqual(b);
    expect(await store.models.get("nothing")).toBeNull();
    expect((await store.models.list()).map((m) => m.name)).toEqual(["a-model", "b-model"]);
    expect(await store.models.resolve("b1")).toEqual(b);
  });

  it("stores only the model's own fields, whatever the object carried", async () => {
    const m = aModel();
    const view = { ...m, replicas: [], headroom: null };
    expect(await store.models.insert(view)).toEqual(m);
    expect(await store.models.update(m.name, 1, { ...view, description: "x" })).toEqual({
      ...m,
      description: "x",
      version: 2,
    });
    expect(await store.models.list()).toHaveLength(1);
  });

  it("lists one owner's models, the unowned ones under the empty owner", async () => {
    const b = await store.models.insert(aModel({ name: "b-model", owner: "research" }));
    const a = await store.models.insert(aModel({ name: "a-model", owner: "research" }));
    const unowned = await store.models.insert(aModel({ owner: "" }));
    await store.models.insert(aModel({ owner: "search" }));
    expect(await store.models.listByOwner("research")).toEqual([a, b]);
    expect(await store.models.listByOwner("")).toEqual([unowned]);
    expect(await store.models.listByOwner("nobody")).toEqual([]);
  });

  describe("one namespace for names and aliases", () => {
    it.each([
      ["a name taken by a name", { name: "x" }, { name: "x" }],
      ["an alias taken by a name", { name: "x" }, { aliases: ["x"] }],
      ["a name taken by an alias", { aliases: ["x"] }, { name: "x" }],
      ["an alias taken by an alias", { aliases: ["x"] }, { aliases: ["x"] }],
    ])("refuses %s", async (_, first, second) => {
      const holder = await store.models.insert(aModel(first));
      const err = await refusal(store.models.insert(aModel(second)));
      expect(err).toBeInstanceOf(NameTaken);
      expect(err).toMatchObject({ taken: "x", heldBy: holder.name });
      expect(await store.models.list()).toEqual([holder]);
    });

    it("refuses an update that takes another model's name as an alias, changing nothing", async () => {
      const other = await store.models.insert(aModel({ aliases: ["taken"] }));
      const mine = await store.models.insert(aModel());
      const err = await refusal(store.models.update(mine.name, 1, { ...mine, aliases: ["taken"] }));
      expect(err).toMatchObject({ taken: "taken", heldBy: other.name });
      expect(await store.models.get(mine.name)).toEqual(mine);
    });

    it("frees a dropped alias and every name of a removed model", async () => {
      const m = await store.models.insert(aModel({ aliases: ["keep", "drop"] }));
      await store.models.update(m.name, 1, { ...m, aliases: ["keep"] });
      await store.models.insert(aModel({ name: "drop" }));
      expect(await store.models.remove(m.name)).toBe(true);
      expect(await store.models.remove(m.name)).toBe(false);
      await store.models.insert(aModel({ name: m.name, aliases: ["keep"] }));
    });

    it("lets a transaction catch a clash and carry on", async () => {
      await store.models.insert(aModel({ name: "x" }));
      const kept = aModel();
      await store.transaction(async (tx) => {
        await tx.models.insert(kept);
        await tx.models.insert(aModel({ name: "x" })).catch((err: unknown) => {
          if (!(err instanceof NameTaken)) throw err;
        });
      });
      expect((await store.models.list()).map((m) => m.name).sort()).toEqual([kept.name, "x"].sort());
    });
  });

  describe("update is compare-and-set on the version", () => {
    it("stores the next model with the version bumped", async () => {
      const m = await store.models.insert(aModel());
      const next = await store.models.update(m.name, 1, { ...m, class: "critical", aliases: ["c"] });
      expect(next).toEqual({ ...m, class: "critical", aliases: ["c"], version: 2 });
      expect(await store.models.get(m.name)).toEqual(next);
      expect(await store.models.resolve("c")).toEqual(next);
    });

    it("refuses a stale version with the current model", async () => {
      const m = await store.models.insert(aModel());
      const current = await store.models.update(m.name, 1, { ...m, owner: "research" });
      const err = await refusal(store.models.update(m.name, 1, { ...m, owner: "other" }));
      expect(err).toBeInstanceOf(VersionConflict);
      expect(err).toMatchObject({ current });
    });

    it("answers null for a model that does not exist", async () => {
      const m = aModel();
      expect(await store.models.update(m.name, 1, m)).toBeNull();
    });
  });

  describe("setBench", () => {
    const bench = (by: string) => ({
      model: "m",
      runs: [
        {
          concurrency: 1,
          requests: 2,
          errors: 0,
          ttftMs: { p50: 10, p95: 12 },
          itlMsP50: 3,
          tokensPerSecond: 40,
          tokensPerSecondPerRequest: 41,
          requestsPerSecond: 2,
        },
      ],
      measuredMemoryGB: 5.2,
      replicas: [],
      at: "2026-01-01T00:00:00.000Z",
      by,
    });

    it("stores the last bench beside the model, keeping its version, through edits and declarations", async () => {
      const m = await store.models.insert(aModel());
      expect(await store.models.setBench(m.name, bench("ada"))).toEqual({ ...m, bench: bench("ada") });
      expect(await store.models.get(m.name)).toEqual({ ...m, bench: bench("ada") });
      const edited = await store.models.update(m.name, 1, { ...m, description: "x" });
      expect(edited).toEqual({ ...m, description: "x", version: 2, bench: bench("ada") });
      expect(await store.models.setBench(m.name, bench("bob"))).toMatchObject({
        version: 2,
        bench: { by: "bob" },
      });

      const d = declared({ name: "declared-model" });
      await store.models.syncDeclared([d]);
      await store.models.setBench(d.name, bench("ada"));
      expect((await store.models.syncDeclared([d])).upserted).toEqual([]);
      expect(await store.models.get(d.name)).toMatchObject({ version: 1, bench: { by: "ada" } });
    });

    it("answers null for a model that does not exist", async () => {
      expect(await store.models.setBench("nothing", bench("ada"))).toBeNull();
    });
  });

  describe("syncDeclared", () => {
    it("inserts declared models as config, version 1, and leaves runtime ones alone", async () => {
      const runtime = await store.models.insert(aModel());
      const d = declared({ aliases: ["d1"] });
      const { upserted, removed } = await store.models.syncDeclared([d], { at: "2026-01-01T00:00:00.000Z" });
      expect(upserted).toEqual([
        { ...d, origin: "config", version: 1, updatedAt: "2026-01-01T00:00:00.000Z", updatedBy: "config" },
      ]);
      expect(removed).toEqual([]);
      expect(await store.models.get(runtime.name)).toEqual(runtime);
      expect((await store.models.resolve("d1"))?.name).toBe(d.name);
    });

    it("bumps the version only when the declaration changed", async () => {
      const d = declared();
      await store.models.syncDeclared([d]);
      expect(await store.models.syncDeclared([d], { at: "2030-01-01T00:00:00.000Z" })).toEqual({
        upserted: [],
        removed: [],
      });
      expect((await store.models.get(d.name))?.version).toBe(1);
      const { upserted } = await store.models.syncDeclared([{ ...d, contextLength: 4096 }]);
      expect(upserted.map((m) => [m.contextLength, m.version])).toEqual([[4096, 2]]);
    });

    it("removes config models no longer declared, and frees their names", async () => {
      const gone = declared({ aliases: ["g1"] });
      const stays = declared();
      await store.models.syncDeclared([gone, stays]);
      expect(await store.models.syncDeclared([stays])).toEqual({ upserted: [], removed: [gone.name] });
      await store.models.insert(aModel({ name: "g1" }));
    });

    it("lets an alias move from one declared model to another", async () => {
      const a = declared({ aliases: ["shared"] });
      const b = declared();
      await store.models.syncDeclared([a, b]);
      await store.models.syncDeclared([
        { ...a, aliases: [] },
        { ...b, aliases: ["shared"] },
      ]);
      expect((await store.models.resolve("shared"))?.name).toBe(b.name);
    });

    it("takes over a runtime model of the same name, continuing its version", async () => {
      const runtime = await store.models.insert(aModel({ aliases: ["old"] }));
      const d = declared({ name: runtime.name });
      const { upserted } = await store.models.syncDeclared([d]);
      expect(upserted.map((m) => [m.origin, m.version])).toEqual([["config", 2]]);
      expect(await store.models.resolve("old")).toBeNull();
    });

    it("refuses two declarations of one name", async () => {
      const d = declared();
      await expect(store.models.syncDeclared([d, { ...d, description: "again" }])).rejects.toBeInstanceOf(
        NameTaken,
      );
    });

    it("refuses a declared alias that a runtime model holds, and writes nothing", async () => {
      const runtime = await store.models.insert(aModel({ aliases: ["mine"] }));
      const err = await refusal(store.models.syncDeclared([declared({ aliases: ["mine"] })]));
      expect(err).toMatchObject({ taken: "mine", heldBy: runtime.name });
      expect(await store.models.list()).toEqual([runtime]);
    });
  });
});
