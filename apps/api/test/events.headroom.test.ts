import { describe, expect, it } from "vitest";
import { HeadroomChanges, startHeadroomChanges } from "../src/events/headroomChanges";
import { beatOk, createOk, heartbeat, modelInput, useApi } from "./harness";

const api = useApi();

describe("headroom.changed: only what moved", () => {
  it("takes the first picture as the baseline, then names only the models whose headroom moved", async () => {
    const small = await createOk(api, modelInput({ need: { minMemoryGB: 8, cpuCores: 1 } }));
    // Held back by a lasting cause, whose reason no change of memory moves.
    const elsewhere = await createOk(
      api,
      modelInput({ need: { minMemoryGB: 8, cpuCores: 1, nodeSelector: { gpu: "a100" } } }),
    );
    const node = heartbeat({ node: { memoryGB: 32, cpuCount: 16 } });
    await beatOk(api, node);
    const changes = new HeadroomChanges();
    expect(changes.next(await api.deps.world.snapshot())).toBeNull();

    // The same picture again says nothing; a beat that changes no sum says nothing either.
    expect(changes.next(await api.deps.world.snapshot())).toBeNull();
    await beatOk(api, { ...node, node: { ...node.node, freeMemoryGB: 3 } });
    expect(changes.next(await api.deps.world.snapshot())).toBeNull();

    // A node with more memory: the small model gains places; the other still cannot use the node.
    await beatOk(api, { ...node, node: { ...node.node, memoryGB: 40 } });
    const event = changes.next(await api.deps.world.snapshot());
    expect(event?.models.map((h) => [h.model, h.free])).toEqual([[small.name, 5]]);
    expect(event?.models[0]).not.toHaveProperty("nodes");
    expect(event?.capacity.total.memoryGB).toBe(40);
    const held = await (
      await api.client.models[":name"].headroom.$get({ param: { name: elsewhere.name } })
    ).json();
    expect(held.whyNot).toEqual([expect.objectContaining({ cause: "selector", nodes: 1 })]);
  });

  it("reaches open streams only, at most every interval, as an unstored event", async () => {
    await createOk(api, modelInput({ need: { minMemoryGB: 8, cpuCores: 1 } }));
    const sent: unknown[] = [];
    const stop = startHeadroomChanges({ hub: api.deps.hub, world: api.deps.world, intervalMs: 20 });
    try {
      const off = api.deps.hub.subscribeEphemeral((e) => sent.push(e));
      await new Promise((r) => setTimeout(r, 60));
      await beatOk(api, heartbeat({ node: { memoryGB: 16, cpuCount: 4 } }));
      await expect.poll(() => sent.length, { timeout: 2000 }).toBe(1);
      expect(sent[0]).toMatchObject({ type: "headroom.changed", data: { models: [{ free: 2 }] } });
      off();
      expect(await api.deps.store.read((tx) => tx.events.since(0, 1000))).not.toContainEqual(
        expect.objectContaining({ type: "headroom.changed" }),
      );
    } finally {
      stop();
    }
  });

  it("says a change that lands between the first stream opening and the next tick", async () => {
    await createOk(api, modelInput({ need: { minMemoryGB: 8, cpuCores: 1 } }));
    const sent: unknown[] = [];
    // A long interval: the beat below lands before the first tick with the stream open.
    const stop = startHeadroomChanges({ hub: api.deps.hub, world: api.deps.world, intervalMs: 300 });
    try {
      const off = api.deps.hub.subscribeEphemeral((e) => sent.push(e));
      await beatOk(api, heartbeat({ node: { memoryGB: 16, cpuCount: 4 } }));
      await expect.poll(() => sent.length, { timeout: 2000 }).toBe(1);
      expect(sent[0]).toMatchObject({ type: "headroom.changed", data: { models: [{ free: 2 }] } });
      off();
    } finally {
      stop();
    }
  });
});
