import type { Capacity, Headroom } from "@llmgw/domain";
import { makeReplica } from "@llmgw/domain/testing";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it, vi } from "vitest";
import { LiveStream } from "../../lib/live";
import { makeNodeView, makeQuotaUsage, makeView } from "../../testing/views";
import { capacityQueryOptions } from "./api/get-capacity";
import { headroomQueryOptions } from "./api/get-headroom";
import { subscribeCapacity } from "./live";

const totals = (freeGB: number): Capacity => ({
  total: { memoryGB: 512, cpuCores: 64, gpus: 0 },
  free: { memoryGB: freeGB, cpuCores: 64, gpus: 0 },
  byClass: [],
  elsewhere: [],
});

function setUp(headroom: Headroom[]) {
  const client = new QueryClient();
  const live = new LiveStream("/events");
  client.setQueryData(headroomQueryOptions().queryKey, headroom);
  client.setQueryData(capacityQueryOptions().queryKey, { ...totals(512), scheduler: false });
  const off = subscribeCapacity(client, live);
  const list = () => client.getQueryData(headroomQueryOptions().queryKey);
  const capacity = () => client.getQueryData(capacityQueryOptions().queryKey);
  return { client, live, off, list, capacity };
}

describe("subscribeCapacity", () => {
  it("shows a changed model's headroom from its event at once, leaving the others' entries as they were", () => {
    const [a, b] = [makeView(), makeView()];
    const { live, list, off } = setUp([a.headroom, b.headroom]);
    const changed = makeView({ name: a.name, headroom: { total: 9 } });
    live.dispatch("model.changed", changed);
    expect(list()?.[0]).toEqual(changed.headroom);
    expect(list()?.[1]).toBe(b.headroom);
    off();
  });

  it("adds a new model's headroom and drops a removed one's", () => {
    const kept = makeView({ name: "m-b" });
    const { live, list, off } = setUp([kept.headroom]);
    const added = makeView({ name: "m-a" });
    live.dispatch("model.changed", added);
    expect(list()?.map((h) => h.model)).toEqual(["m-a", "m-b"]);
    live.dispatch("model.removed", { name: "m-b" });
    expect(list()?.map((h) => h.model)).toEqual(["m-a"]);
    off();
  });

  it("writes what headroom.changed says in place: the moved models' headroom and the fleet's totals", () => {
    const [a, b, c] = [makeView({ name: "m-a" }), makeView({ name: "m-b" }), makeView({ name: "m-c" })];
    const { live, list, capacity, off } = setUp([a.headroom, b.headroom, c.headroom]);
    const movedA = { ...a.headroom, free: 3, total: 3 };
    const movedC = { ...c.headroom, free: 1, total: 1 };
    live.dispatch("headroom.changed", { models: [movedC, movedA], capacity: totals(200) });
    expect(list()).toEqual([movedA, b.headroom, movedC]);
    // The unmoved entry keeps its object, so its card does not render again.
    expect(list()?.[1]).toBe(b.headroom);
    expect(capacity()?.free.memoryGB).toBe(200);
    // The event carries fleet sums only: whether the scheduler runs stays as fetched.
    expect(capacity()?.scheduler).toBe(false);
    off();
  });

  it("fetches nothing again for fleet events: headroom.changed brings what they moved", () => {
    const model = makeView();
    const { client, live, list, off } = setUp([model.headroom]);
    const invalidate = vi.spyOn(client, "invalidateQueries");
    const refetch = vi.spyOn(client, "refetchQueries");
    const before = list();
    live.dispatch("node.changed", makeNodeView({ freeMemoryGB: 12 }));
    live.dispatch("node.removed", { name: "gone" });
    live.dispatch("replica.changed", makeReplica({ model: model.name }));
    live.dispatch("quota.changed", makeQuotaUsage({ owner: model.owner }));
    expect(invalidate).not.toHaveBeenCalled();
    expect(refetch).not.toHaveBeenCalled();
    expect(list()).toBe(before);
    expect(client.getQueryState(headroomQueryOptions().queryKey)?.isInvalidated).toBe(false);
    expect(client.getQueryState(capacityQueryOptions().queryKey)?.isInvalidated).toBe(false);
    off();
  });

  it("leaves the totals unfetched when the page never asked for them", () => {
    const client = new QueryClient();
    const live = new LiveStream("/events");
    const off = subscribeCapacity(client, live);
    live.dispatch("headroom.changed", { models: [], capacity: totals(1) });
    expect(client.getQueryData(capacityQueryOptions().queryKey)).toBeUndefined();
    off();
  });
});
