import { makeReplica } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { placingOf } from "./placing";

const always = (n: number) => ({ scaling: { min: n, max: n, idleTimeoutSeconds: 900 } });

describe("placingOf", () => {
  it("says a new model's replicas are being placed until they run", () => {
    const model = makeView({ name: "m", ...always(1), headroom: { total: 3 } });
    expect(placingOf(model)).toEqual({ text: "placing 1 replica…", why: false });

    const starting = makeReplica({ model: "m", state: "starting", node: "n1" });
    expect(placingOf({ ...model, replicas: [starting] })).toEqual({
      text: "starting 1 replica…",
      why: false,
    });

    const ready = { ...starting, state: "ready" as const };
    expect(
      placingOf({ ...model, replicas: [ready], headroom: { ...model.headroom, current: 1 } }),
    ).toBeNull();
  });

  it("counts as running only what the domain does: a ready replica on a draining node is not", () => {
    const model = makeView({ name: "m", ...always(1), headroom: { total: 3, current: 0, elsewhere: 1 } });
    const draining = makeReplica({ model: "m", state: "ready", node: "draining-node" });
    expect(placingOf({ ...model, replicas: [draining] })).toEqual({ text: "placing 1 replica…", why: false });
  });

  it("says the scheduler is off rather than placing forever; an agent's starting replica still counts", () => {
    const model = makeView({ name: "m", ...always(1), headroom: { total: 3 } });
    expect(placingOf(model, { scheduler: false })).toEqual({
      text: "1 replica not running: the scheduler is off, only agents start replicas",
      why: true,
    });
    expect(placingOf(model, { scheduler: true })).toEqual({ text: "placing 1 replica…", why: false });
    const starting = makeReplica({ model: "m", state: "starting", node: "n1" });
    expect(placingOf({ ...model, replicas: [starting] }, { scheduler: false })).toEqual({
      text: "starting 1 replica…",
      why: false,
    });
  });

  it("says why not: a held-back replica's reason first", () => {
    const reason = "no node fits: needs 24 GB, the largest free is 16 GB";
    const model = makeView({
      name: "m",
      ...always(2),
      replicas: [makeReplica({ model: "m", state: "pending", node: null, reason })],
    });
    expect(placingOf(model)).toEqual({ text: `2 replicas not running: ${reason}`, why: true });
  });

  it("says why not from the headroom when nothing is placed: the quota, or the nodes' cause", () => {
    const quota = makeView({ ...always(1), owner: "research", headroom: { total: 0, limitedBy: "quota" } });
    expect(placingOf(quota)).toEqual({ text: "no room in the quota of research", why: true });

    const example = "n7: needs 24 GB, has 16 GB free of 64";
    const short = makeView({
      ...always(1),
      headroom: { total: 0, whyNot: [{ cause: "short of memory", nodes: 3, example }] },
    });
    expect(placingOf(short)).toEqual({
      text: `no node can take it: short of memory on 3 nodes, e.g. ${example}`,
      why: true,
    });
  });

  it("says nothing for a stopped or on-demand model", () => {
    expect(placingOf(makeView({ scaling: { min: 0, max: 0, idleTimeoutSeconds: 900 } }))).toBeNull();
    expect(placingOf(makeView({ scaling: { min: 0, max: 2, idleTimeoutSeconds: 900 } }))).toBeNull();
  });
});
