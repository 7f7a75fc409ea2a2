import type { Headroom } from "@llmgw/domain";
import { makeReplica } from "@llmgw/domain/testing";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveStream } from "../../lib/live";
import { makeNodeView, makeQuotaUsage, makeView } from "../../testing/views";
import { capacityQueryOptions } from "./api/get-capacity";
import { headroomQueryOptions } from "./api/get-headroom";
import { CAPACITY_REFRESH_MS, subscribeCapacity } from "./live";

function setUp(headroom: Headroom[]) {
  const client = new QueryClient();
  const live = new LiveStream("/events");
  client.setQueryData(headroomQueryOptions().queryKey, headroom);
  client.setQueryData(capacityQueryOptions().queryKey, {
    total: { memoryGB: 0, cpuCores: 0, gpus: 0 },
    free: { memoryGB: 0, cpuCores: 0, gpus: 0 },
    byClass: [],
  } as never);
  const off = subscribeCapacity(client, live);
  const list = () => client.getQueryData(headroomQueryOptions().queryKey);
  const invalidated = () => client.getQueryState(headroomQueryOptions().queryKey)?.isInvalidated;
  return { client, live, off, list, invalidated };
}

describe("subscribeCapacity", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

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

  it("refetches the fleet-wide sums once for a burst of events, not once per event", () => {
    const model = makeView();
    const { client, live, invalidated, off } = setUp([model.headroom]);
    const invalidate = vi.spyOn(client, "invalidateQueries");
    live.dispatch("model.changed", model);
    live.dispatch("replica.changed", makeReplica({ model: model.name }));
    live.dispatch("quota.changed", makeQuotaUsage({ owner: model.owner }));
    expect(invalidated()).toBe(false);
    vi.advanceTimersByTime(0);
    expect(invalidated()).toBe(true);
    // One refetch of capacity and one of headroom for the three events.
    expect(invalidate).toHaveBeenCalledTimes(2);
    live.dispatch("node.changed", makeNodeView());
    vi.advanceTimersByTime(CAPACITY_REFRESH_MS - 1);
    expect(invalidate).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1);
    expect(invalidate).toHaveBeenCalledTimes(4);
    off();
  });
});
