import { describe, expect, it } from "vitest";
import { makeNodeView, makeQuotaUsage, makeView } from "../../testing/views";
import { healthOf } from "./health";

describe("healthOf", () => {
  it("counts models needing attention, nodes down or draining, and owners over quota", () => {
    const models = [
      makeView({ scaling: { min: 2, max: 2, idleTimeoutSeconds: 600 }, headroom: { current: 0 } }),
      makeView({
        scaling: { min: 1, max: 1, idleTimeoutSeconds: 600 },
        headroom: { current: 1, elsewhere: 1 },
      }),
      makeView({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 600 }, headroom: { current: 1 } }),
    ];
    const nodes = [
      makeNodeView({ state: "down" }),
      makeNodeView({ state: "draining" }),
      makeNodeView({ state: "ready" }),
    ];
    const over = { ...makeQuotaUsage({ owner: "ops", replicas: 1 }) };
    over.used = { ...over.used, replicas: 2 };
    const within = makeQuotaUsage({ owner: "research", replicas: 5 });
    expect(healthOf(models, nodes, [over, within])).toEqual({
      models: 2,
      short: 1,
      down: 1,
      draining: 1,
      overQuota: 1,
    });
  });

  it("counts a model whose owner is over quota, as the Models page's filter its link opens does", () => {
    const fine = makeView({ owner: "ops", headroom: { current: 1 } });
    const over = { ...makeQuotaUsage({ owner: "ops", replicas: 1 }) };
    over.used = { ...over.used, replicas: 2 };
    expect(healthOf([fine], [], [over])).toMatchObject({ models: 1, short: 0, overQuota: 1 });
    expect(healthOf([fine], [], [])).toMatchObject({ models: 0, overQuota: 0 });
  });

  it("is all zeros when all is well", () => {
    expect(healthOf([makeView({ headroom: { current: 1 } })], [makeNodeView()], [])).toEqual({
      models: 0,
      short: 0,
      down: 0,
      draining: 0,
      overQuota: 0,
    });
  });
});
