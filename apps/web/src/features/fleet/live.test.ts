import { makeReplica } from "@llmgw/domain/testing";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it, vi } from "vitest";
import { LiveStream } from "../../lib/live";
import { makeNodeView } from "../../testing/views";
import { nodesQueryOptions } from "./api/get-nodes";
import { replicasQueryOptions } from "./api/get-replicas";
import { subscribeFleet } from "./live";

function setUp(nodes = [makeNodeView({ name: "n-a" }), makeNodeView({ name: "n-b" })]) {
  const client = new QueryClient();
  const live = new LiveStream("/events");
  const replica = makeReplica({ node: "n-a" });
  client.setQueryData(nodesQueryOptions().queryKey, nodes);
  client.setQueryData(replicasQueryOptions().queryKey, [replica]);
  const off = subscribeFleet(client, live);
  const list = () => client.getQueryData(nodesQueryOptions().queryKey);
  const replicas = () => client.getQueryData(replicasQueryOptions().queryKey);
  return { client, live, off, list, replicas, replica };
}

describe("subscribeFleet", () => {
  it("shows a changed node's bar from its event at once, leaving the other nodes' objects as they were", () => {
    const { live, list, off } = setUp();
    const [, b] = list() ?? [];
    const changed = makeNodeView({
      name: "n-a",
      usage: { free: { memoryGB: 3, cpuCores: 1, gpus: 0 }, byClass: [] },
    });
    live.dispatch("node.changed", changed);
    expect(list()?.[0]).toEqual(changed);
    expect(list()?.[1]).toBe(b);
    live.dispatch("node.removed", { name: "n-b" });
    expect(list()?.map((n) => n.name)).toEqual(["n-a"]);
    off();
  });

  it("moves a replica in place from its event, and fetches no list again: the node's own event brings its bar", () => {
    vi.useFakeTimers();
    const { client, live, list, replicas, replica, off } = setUp();
    const invalidate = vi.spyOn(client, "invalidateQueries");
    const refetch = vi.spyOn(client, "refetchQueries");
    const nodes = list();
    const starting = { ...replica, state: "starting" as const };
    const added = makeReplica({ node: "n-b" });
    live.dispatch("replica.changed", starting);
    live.dispatch("replica.changed", added);
    expect(replicas()).toEqual([starting, added]);
    live.dispatch("replica.changed", { ...added, removed: true });
    expect(replicas()).toEqual([starting]);
    // Well past any throttle a refetch could wait behind.
    vi.advanceTimersByTime(5_000);
    vi.useRealTimers();
    expect(invalidate).not.toHaveBeenCalled();
    expect(refetch).not.toHaveBeenCalled();
    expect(list()).toBe(nodes);
    expect(client.getQueryState(nodesQueryOptions().queryKey)?.isInvalidated).toBe(false);
    off();
  });
});
