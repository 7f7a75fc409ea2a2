import { compareText, DEFAULT_CLASSES } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { backendFor, useStore } from "./backends";
import { aMirrorVersion, aNode, anAuditEntry, aQuota, aReplica, unique } from "./factories";
import { describeOnEachDatabase } from "./testStore";

describeOnEachDatabase("fleet, quotas, audit and events on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  describe("nodes", () => {
    it("upserts a node whole and changes its state", async () => {
      const node = aNode({ labels: { zone: "a" }, engines: ["llamacpp", "vllm"] });
      expect(await store.nodes.upsert(node)).toEqual(node);
      expect(await store.nodes.upsert({ ...node, freeMemoryGB: 12 })).toEqual({ ...node, freeMemoryGB: 12 });
      expect(await store.nodes.setState(node.name, "draining")).toMatchObject({ state: "draining" });
      expect(await store.nodes.get(node.name)).toMatchObject({ state: "draining", freeMemoryGB: 12 });
      expect(await store.nodes.setState("nowhere", "down")).toBeNull();
      expect(await store.nodes.list()).toHaveLength(1);
      expect(await store.nodes.remove(node.name)).toBe(true);
      expect(await store.nodes.remove(node.name)).toBe(false);
      expect(await store.nodes.list()).toEqual([]);
    });
  });

  describe("nodes, several at once", () => {
    it("upsertAll writes each node as upsert would, columns and all", async () => {
      const [a, b] = [aNode({ labels: { zone: "a" } }), aNode({ state: "draining" })];
      const rows = () => store.sql.query("select name, state, last_seen, doc from nodes order by name");
      await store.nodes.upsertAll([a, b]);
      const together = await rows();
      expect(together).toHaveLength(2);
      await store.nodes.upsert(a);
      await store.nodes.upsert(b);
      expect(await rows()).toEqual(together);
      await store.nodes.upsertAll([{ ...a, freeMemoryGB: 3 }]);
      expect(await store.nodes.get(a.name)).toEqual({ ...a, freeMemoryGB: 3 });
      await store.nodes.upsertAll([]);
      expect(await store.nodes.list()).toHaveLength(2);
    });
  });

  describe("replicas", () => {
    it("upserts, lists by node and removes", async () => {
      const node = unique("node");
      const placed = await store.replicas.upsert(aReplica({ node }));
      const pending = await store.replicas.upsert(
        aReplica({ node: null, state: "pending", reason: "no room" }),
      );
      expect(await store.replicas.listByNode(node)).toEqual([placed]);
      expect((await store.replicas.list()).map((r) => r.id).sort()).toEqual([placed.id, pending.id].sort());
      expect(await store.replicas.remove(pending.id)).toBe(true);
      expect(await store.replicas.remove(pending.id)).toBe(false);
    });

    it("says where replicas are by id, and removes a node's replicas", async () => {
      const [a, b] = [unique("node"), unique("node")];
      const onA = await store.replicas.upsert(aReplica({ node: a }));
      const onB = await store.replicas.upsert(aReplica({ node: b }));
      const pending = await store.replicas.upsert(
        aReplica({ node: null, state: "pending", reason: "no room" }),
      );
      expect(await store.replicas.nodesOf([onA.id, onB.id, pending.id, "nowhere"])).toEqual(
        new Map([
          [onA.id, a],
          [onB.id, b],
          [pending.id, null],
        ]),
      );
      expect(await store.replicas.removeByNode(a)).toEqual([onA]);
      expect((await store.replicas.list()).map((r) => r.id).sort()).toEqual([onB.id, pending.id].sort());
    });

    it("lists the replicas of some models, placed or not", async () => {
      const [a, b] = [unique("model"), unique("model")];
      const placed = await store.replicas.upsert(aReplica({ model: a, node: unique("node") }));
      const pending = await store.replicas.upsert(aReplica({ model: b, node: null, state: "pending" }));
      await store.replicas.upsert(aReplica());
      expect((await store.replicas.listByModels([a, b])).map((r) => r.id).sort()).toEqual(
        [placed.id, pending.id].sort(),
      );
      expect(await store.replicas.listByModels([a])).toEqual([placed]);
      expect(await store.replicas.listByModels([])).toEqual([]);
    });

    it("writeAll: many upserts and removals as if one by one (the last write of an id wins); listByNodes", async () => {
      const [a, b] = [unique("node"), unique("node")];
      const staying = await store.replicas.upsert(aReplica({ node: a }));
      const going = await store.replicas.upsert(aReplica({ node: b }));
      const moved = aReplica({ node: a });
      const pending = aReplica({ node: null, state: "pending", reason: "no room" });
      await store.replicas.writeAll([
        { replica: moved },
        { replica: going, removed: true },
        { replica: pending },
        { replica: { ...moved, node: b, state: "ready" } },
        { replica: { ...pending }, removed: true },
      ]);
      const all = await store.replicas.list();
      expect(all.map((r) => r.id).sort()).toEqual([staying.id, moved.id].sort());
      expect(all.find((r) => r.id === moved.id)).toMatchObject({ node: b, state: "ready" });
      expect((await store.replicas.listByNodes([a, b])).map((r) => r.id).sort()).toEqual(
        [staying.id, moved.id].sort(),
      );
      expect(await store.replicas.listByNodes([])).toEqual([]);
      await store.replicas.writeAll([]);
    });

    it("replaceForNode writes and returns only what really changed", async () => {
      const node = unique("node");
      const same = aReplica({ node });
      const changing = aReplica({ node, state: "starting" });
      const leaving = aReplica({ node });
      const elsewhere = aReplica({ node: unique("node") });
      await store.replicas.replaceForNode(node, [same, changing, leaving]);
      await store.replicas.upsert(elsewhere);

      const arriving = aReplica({ node });
      const ready = { ...changing, state: "ready" as const, measuredMemoryGB: 7.5 };
      expect(await store.replicas.replaceForNode(node, [same, ready, arriving])).toEqual({
        upserted: [ready, arriving],
        removed: [leaving.id],
      });
      // xmin changes whenever a row is rewritten, even to the same value.
      const rowVersions = () => store.sql.query("select id, xmin::text from replicas order by id");
      const before = await rowVersions();
      expect(await store.replicas.replaceForNode(node, [arriving, same, ready])).toEqual({
        upserted: [],
        removed: [],
      });
      expect(await rowVersions()).toEqual(before);
      expect((await store.replicas.listByNode(node)).map((r) => r.id).sort()).toEqual(
        [same.id, ready.id, arriving.id].sort(),
      );
      expect(await store.replicas.listByNode(elsewhere.node ?? "")).toEqual([elsewhere]);
    });

    it("replaceForNodes: several nodes at once, each as replaceForNode alone would leave it and say", async () => {
      const [a, b, c] = [unique("node"), unique("node"), unique("node")];
      const stays = aReplica({ node: a });
      const goes = aReplica({ node: a });
      const onB = aReplica({ node: b });
      await store.replicas.replaceForNodes([
        { node: a, replicas: [stays, goes] },
        { node: b, replicas: [onB] },
      ]);
      const arriving = aReplica({ node: c });
      const moved = { ...onB, state: "starting" as const };
      expect(
        await store.replicas.replaceForNodes([
          { node: a, replicas: [stays] },
          { node: b, replicas: [moved] },
          { node: c, replicas: [arriving] },
        ]),
      ).toEqual([
        { upserted: [], removed: [goes.id] },
        { upserted: [moved], removed: [] },
        { upserted: [arriving], removed: [] },
      ]);
      expect(await store.replicas.listByNodes([a, b, c])).toEqual(
        [stays, moved, arriving].sort((x, y) => compareText(x.id, y.id)),
      );
    });

    it("replaceForNode with an empty report removes everything on the node", async () => {
      const node = unique("node");
      const r = aReplica({ node });
      await store.replicas.replaceForNode(node, [r]);
      expect(await store.replicas.replaceForNode(node, [])).toEqual({ upserted: [], removed: [r.id] });
    });
  });

  describe("quotas", () => {
    it("puts and gets limits, null meaning unlimited", async () => {
      const q = aQuota({ gpus: null });
      expect(await store.quotas.put(q)).toEqual(q);
      expect(await store.quotas.put({ ...q, gpus: 4 })).toEqual({ ...q, gpus: 4 });
      expect(await store.quotas.get(q.owner)).toEqual({ ...q, gpus: 4 });
      expect(await store.quotas.get("nobody")).toBeNull();
    });

    it("seed inserts only absent owners: configured values are starting values", async () => {
      const changed = await store.quotas.put(aQuota({ owner: "research", memoryGB: 512 }));
      const fresh = aQuota();
      expect(await store.quotas.seed([aQuota({ owner: "research", memoryGB: 1 }), fresh])).toEqual([fresh]);
      expect(await store.quotas.list()).toEqual(
        [fresh, changed].sort((a, b) => a.owner.localeCompare(b.owner)),
      );
    });
  });

  describe("classes", () => {
    it("seeds the default set when there are none, highest rank first", async () => {
      expect(await store.classes.seed()).toEqual(DEFAULT_CLASSES);
      expect((await store.classes.list()).map((c) => [c.name, c.rank])).toEqual([
        ["critical", 300],
        ["standard", 200],
        ["batch", 100],
      ]);
      expect(await store.classes.seed()).toEqual([]);
    });

    it("seeds configured classes without overwriting stored ones, and no defaults then", async () => {
      await store.classes.put({ name: "gold", rank: 500, description: "set by an admin" });
      await store.classes.seed([
        { name: "gold", rank: 1, description: "" },
        { name: "bronze", rank: 10, description: "" },
      ]);
      expect((await store.classes.list()).map((c) => [c.name, c.rank])).toEqual([
        ["gold", 500],
        ["bronze", 10],
      ]);
    });
  });

  describe("audit", () => {
    it("lists newest first and filters by model", async () => {
      const model = unique("model");
      const [first, second] = await store.audit.append([
        anAuditEntry({ target: model, field: "class", before: null, after: { deep: [1] } }),
        anAuditEntry({ target: model, field: "owner" }),
      ]);
      const other = await store.audit.append([anAuditEntry()]);
      expect(first?.id).toBeLessThan(second?.id ?? 0);
      expect(first).toMatchObject({ target: model, before: null, after: { deep: [1] } });
      expect(await store.audit.list({ model })).toEqual([second, first]);
      expect(await store.audit.list()).toEqual([...other, second, first]);
      expect(await store.audit.list({ limit: 1 })).toEqual(other);
    });

    it("keeps the model version an entry carries", async () => {
      const entry = { ...anAuditEntry(), version: 3 };
      await store.audit.append([entry, anAuditEntry()]);
      expect(await store.sql.query("select version from audit order by id")).toEqual([
        { version: 3 },
        { version: null },
      ]);
    });
  });

  describe("events", () => {
    it("appends many at once, in the caller's order, with one id each", async () => {
      const many = Array.from({ length: 60 }, (_, n) =>
        n % 2 === 0
          ? { type: "model.removed" as const, data: { name: `m-${n}` } }
          : { type: "node.removed" as const, data: { name: `n-${n}` } },
      );
      const ids = await store.transaction((tx) => tx.events.appendAll(many));
      expect(ids).toHaveLength(60);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const stored = await store.events.since(0, 100);
      expect(stored).toEqual(many.map((event, i) => ({ id: ids[i], ...event })));
      expect(await store.events.appendAll([])).toEqual([]);
      // An origin, when given, comes back with the event (the relay tells its own from others').
      const gone = { type: "model.removed" as const, data: { name: "gone" } };
      const [mine] = await store.events.appendAll([gone], "process-a");
      expect(await store.events.since((mine ?? 0) - 1)).toEqual([{ id: mine, ...gone, origin: "process-a" }]);
    });

    it("hands out increasing ids and resumes after any of them", async () => {
      expect(await store.events.latestId()).toBe(0);
      const ids: number[] = [];
      for (const n of [1, 2, 3]) ids.push(await store.events.append("model.removed", { name: `m-${n}` }));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(3);
      expect(await store.events.latestId()).toBe(ids[2]);
      expect(await store.events.since(ids[0] ?? 0)).toEqual([
        { id: ids[1], type: "model.removed", data: { name: "m-2" } },
        { id: ids[2], type: "model.removed", data: { name: "m-3" } },
      ]);
      expect(await store.events.since(0, 1)).toHaveLength(1);
    });

    it("appends inside a transaction with the change it announces, or not at all", async () => {
      const node = aNode();
      const view = { ...node, usage: { free: { memoryGB: 0, cpuCores: 0, gpus: 0 }, byClass: [] } };
      await store
        .transaction(async (tx) => {
          await tx.nodes.upsert(node);
          await tx.events.append("node.changed", view);
          throw new Error("abandoned");
        })
        .catch(() => undefined);
      expect(await store.events.latestId()).toBe(0);
      const id = await store.transaction(async (tx) => {
        await tx.nodes.upsert(node);
        return tx.events.append("node.changed", view);
      });
      expect(await store.events.since(0)).toEqual([{ id, type: "node.changed", data: view }]);
    });

    it("prunes all but the newest", async () => {
      for (const n of [1, 2, 3, 4]) await store.events.append("model.removed", { name: `m-${n}` });
      expect(await store.events.prune(2)).toBe(2);
      expect((await store.events.since(0)).map((e) => e.data)).toEqual([{ name: "m-3" }, { name: "m-4" }]);
    });
  });

  describe("mirror", () => {
    it("puts, lists and removes versions", async () => {
      const v = aMirrorVersion();
      await store.mirror.put({ ...v, files: [] });
      expect(await store.mirror.put(v)).toEqual(v);
      expect(await store.mirror.list()).toEqual([v]);
      expect(await store.mirror.remove(v.model, v.version)).toBe(true);
      expect(await store.mirror.list()).toEqual([]);
    });
  });
});
