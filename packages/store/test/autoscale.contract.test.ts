import { describe, expect, it } from "vitest";
import { backendFor, useStore } from "./backends";
import { unique } from "./factories";
import { describeOnEachDatabase } from "./testStore";

const T0 = Date.UTC(2026, 0, 1, 14, 0);

describeOnEachDatabase("autoscaling's rows on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  describe("demand (SPEC §9.1)", () => {
    it("keeps one row a process, replaced, and lists those recorded after a time", async () => {
      const [a, b] = [unique("process"), unique("process")];
      await store.demand.record(a, { at: T0, models: { chat: 3 }, replicas: { r1: 2 } });
      await store.demand.record(a, { at: T0 + 1000, models: { chat: 5 }, replicas: { r1: 4 } });
      await store.demand.record(b, { at: T0 - 5000, models: { chat: 9 }, replicas: {} });
      expect(await store.demand.since(T0 - 3000)).toEqual([
        { process: a, at: T0 + 1000, models: { chat: 5 }, replicas: { r1: 4 } },
      ]);
      expect(await store.demand.since(T0 - 10_000)).toHaveLength(2);
      await store.demand.forget(a);
      expect((await store.demand.since(0)).map((r) => r.process)).toEqual([b]);
    });

    it("forgets rows left by processes gone for long, in the same statement as a record", async () => {
      const [gone, here] = [unique("process"), unique("process")];
      await store.demand.record(gone, { at: T0 - 120_000, models: { chat: 1 }, replicas: {} });
      await store.demand.record(here, { at: T0, models: {}, replicas: {} }, T0 - 60_000);
      expect((await store.demand.since(0)).map((r) => r.process)).toEqual([here]);
    });
  });

  describe("wanted replicas (SPEC §9.3)", () => {
    it("are written in one statement and read back by what changed since a point", async () => {
      const first = await store.autoscale.since(0);
      await store.autoscale.put([
        { model: "chat", wanted: 4, holdUntil: null },
        { model: "code", wanted: 2, holdUntil: T0 },
      ]);
      const all = await store.autoscale.since(first.seq);
      expect(all.rows).toEqual([
        { model: "chat", wanted: 4, holdUntil: null },
        { model: "code", wanted: 2, holdUntil: T0 },
      ]);
      await store.autoscale.put([{ model: "chat", wanted: 4, holdUntil: T0 + 300_000 }]);
      const changed = await store.autoscale.since(all.seq);
      expect(changed.rows).toEqual([{ model: "chat", wanted: 4, holdUntil: T0 + 300_000 }]);
      expect(changed.seq).toBeGreaterThan(all.seq);
      expect((await store.autoscale.since(changed.seq)).rows).toEqual([]);
    });
  });
});
