import type { EventOf } from "@llmgw/domain";
import { makeTraffic } from "@llmgw/domain/testing";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { type CommittedEvent, EventHub } from "../src/events/eventHub";
import type { EventLog } from "../src/events/openStream";
import { eventRoutes } from "../src/routes/events";
import { EventStream, parsed } from "./sse";

// Unstored events (`hub.sendEphemeral`, e.g. model.traffic): this process's streams get them with
// no `id:` line, so Last-Event-ID (what a client resumes from) stays the last stored event's.

const open: EventStream[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

let nextId = 1;
const stored = (): CommittedEvent => ({ id: nextId++, type: "model.removed", data: { name: `m-${nextId}` } });
const traffic = (model: string): EventOf<"model.traffic"> => ({
  type: "model.traffic",
  data: makeTraffic({ model, requestsPerSecond: 1 }),
});

async function streamOf(app: Hono, headers: Record<string, string> = {}): Promise<EventStream> {
  const stream = await EventStream.of(await app.request("/events", { headers }));
  open.push(stream);
  return stream;
}

describe("an ephemeral event", () => {
  it("reaches every open stream without an id, between stored events that keep theirs", async () => {
    const hub = new EventHub();
    const app = new Hono().route("/events", eventRoutes(hub, { since: async () => [] }));
    const streams = [await streamOf(app), await streamOf(app)];
    const before = stored();
    const after = stored();

    hub.publish([before]);
    hub.sendEphemeral(traffic("tiny"));
    hub.publish([after]);

    for (const stream of streams) {
      expect((await stream.take(3)).map(parsed)).toEqual([
        { id: String(before.id), event: "model.removed", data: before.data },
        { id: null, event: "model.traffic", data: traffic("tiny").data },
        { id: String(after.id), event: "model.removed", data: after.data },
      ]);
    }
  });

  it("is not given to the hub's stored-event listeners (the scheduler's)", () => {
    const hub = new EventHub();
    const seen: CommittedEvent[] = [];
    hub.subscribe((event) => seen.push(event));

    hub.sendEphemeral(traffic("tiny"));

    expect(seen).toEqual([]);
  });

  it("is skipped by a stream still replaying, which resumes from stored ids alone", async () => {
    const hub = new EventHub();
    const missed = [stored(), stored()];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The replay waits until the test has sent an ephemeral event meanwhile.
    const log: EventLog = {
      since: async (id) => {
        await gate;
        return missed.filter((e) => e.id > id);
      },
    };
    const app = new Hono().route("/events", eventRoutes(hub, log));
    const resumed = await streamOf(app, { "Last-Event-ID": String((missed[0]?.id ?? 0) - 1) });

    hub.sendEphemeral(traffic("during-replay"));
    release();
    const replayed = await resumed.take(2);
    hub.sendEphemeral(traffic("live"));
    const live = await resumed.next();

    expect(replayed.map((e) => e.id)).toEqual(missed.map((e) => String(e.id)));
    expect(parsed(live)).toEqual({ id: null, event: "model.traffic", data: traffic("live").data });
  });
});
