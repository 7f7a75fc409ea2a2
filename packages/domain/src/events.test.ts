import { describe, expect, it } from "vitest";
import { makeMirrorVersion, makeReplica } from "../test/factories";
import { changeEventSchema, EVENT_TYPES, type EventOf, liveEventSchema } from "./events";

describe("the event union", () => {
  it("names every type once, the change events and the ephemeral model.traffic, headroom.changed, model.bench and model.autoscale", () => {
    expect(EVENT_TYPES).toEqual([
      "model.changed",
      "model.removed",
      "node.changed",
      "node.removed",
      "replica.changed",
      "mirror.changed",
      "quota.changed",
      "model.scaled",
      "mirror.pull",
      "model.rollout",
      "model.traffic",
      "headroom.changed",
      "model.bench",
      "model.autoscale",
    ]);
    expect(changeEventSchema.options.map((o) => o.shape.type.value)).not.toContain("model.traffic");
    expect(changeEventSchema.options.map((o) => o.shape.type.value)).not.toContain("headroom.changed");
    expect(changeEventSchema.options.map((o) => o.shape.type.value)).not.toContain("model.bench");
    expect(changeEventSchema.options.map((o) => o.shape.type.value)).not.toContain("model.autoscale");
  });

  it("reads a payload by its type", () => {
    const removed = makeReplica();
    const event: EventOf<"replica.changed"> = {
      type: "replica.changed",
      data: { ...removed, removed: true },
    };
    expect(liveEventSchema.parse(event)).toEqual(event);
    const gone = { type: "mirror.changed", data: { model: "m", version: "main", removed: true } };
    expect(liveEventSchema.parse(gone)).toEqual(gone);
  });

  it("refuses a payload that is not its type's", () => {
    const { model, version } = makeMirrorVersion();
    expect(liveEventSchema.safeParse({ type: "node.changed", data: { name: "n" } }).success).toBe(false);
    expect(liveEventSchema.safeParse({ type: "mirror.changed", data: { model, version } }).success).toBe(
      false,
    );
    expect(liveEventSchema.safeParse({ type: "model.renamed", data: {} }).success).toBe(false);
  });
});
