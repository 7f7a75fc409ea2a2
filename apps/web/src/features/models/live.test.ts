import type { Replica } from "@llmgw/domain";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveStream } from "../../lib/live";
import { makeNodeView, makeQuotaUsage, makeView } from "../../testing/views";
import { modelsQueryOptions } from "./api/get-models";
import { subscribeModels } from "./live";

function replicaOf(model: string, overrides: Partial<Replica> = {}): Replica {
  return {
    id: `${model}-r1`,
    model,
    profile: "cpu",
    node: "node-a",
    state: "ready",
    memoryGB: 8,
    cpuCores: 2,
    gpus: 0,
    measuredMemoryGB: null,
    startedAt: null,
    reason: null,
    ...overrides,
  } as Replica;
}

describe("subscribeModels", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setUp() {
    const [a, b] = [makeView(), makeView()];
    const client = new QueryClient();
    const live = new LiveStream("/events");
    client.setQueryData(modelsQueryOptions().queryKey, [a, b]);
    const off = subscribeModels(client, live);
    const list = () => client.getQueryData(modelsQueryOptions().queryKey);
    return { a, b, client, live, off, list };
  }

  it("replaces a changed model's view at once and leaves the others' views as they were", () => {
    const { a, b, live, list, off } = setUp();
    const changed = { ...a, version: a.version + 1, scaling: { ...a.scaling, min: 2, max: 2 } };
    live.dispatch("model.changed", changed);
    expect(list()?.[0]).toEqual(changed);
    expect(list()?.[1]).toBe(b);
    off();
  });

  it("moves a replica inside its model's view", () => {
    const { a, live, list, off } = setUp();
    live.dispatch("replica.changed", replicaOf(a.name));
    expect(list()?.[0]?.replicas.map((r) => r.id)).toEqual([`${a.name}-r1`]);
    live.dispatch("replica.changed", { ...replicaOf(a.name), removed: true });
    expect(list()?.[0]?.replicas).toEqual([]);
    off();
  });

  it("does not refetch the whole catalogue for fleet events: headroom is the capacity feature's", () => {
    const { a, client, live, off } = setUp();
    const invalidate = vi.spyOn(client, "invalidateQueries");
    live.dispatch("node.changed", makeNodeView({ name: "node-a" }));
    live.dispatch("quota.changed", makeQuotaUsage({ owner: a.owner }));
    live.dispatch("replica.changed", replicaOf(a.name));
    live.dispatch("model.changed", { ...a, version: a.version + 1 });
    vi.runAllTimers();
    expect(invalidate).not.toHaveBeenCalled();
    expect(client.getQueryState(modelsQueryOptions().queryKey)?.isInvalidated).toBe(false);
    off();
  });
});
