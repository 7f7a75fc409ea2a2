import { liveEventOf } from "@llmgw/client/events";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { EventHub } from "../src/events/eventHub";
import { eventRoutes } from "../src/routes/events";
import { heartbeat, modelInput, useApi } from "./harness";
import { dataOf, EventStream, parsed } from "./sse";

// GET /api/v1/events in-process: one multiplexed stream, resumable with Last-Event-ID (SPEC §3).
// server.test.ts does the same against the real server process.

const api = useApi();
const open: EventStream[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function events(headers: Record<string, string> = {}, query = ""): Promise<EventStream> {
  const stream = await EventStream.of(await api.app.request(`/api/v1/events${query}`, { headers }));
  open.push(stream);
  return stream;
}

describe("GET /events", () => {
  it("carries each committed change live, with increasing ids", async () => {
    const stream = await events();
    const body = heartbeat();

    await api.client.agents.heartbeat.$post({ json: body });
    const input = modelInput();
    await api.client.models.$post({ json: input });

    const [node, model] = (await stream.take(2)).map(parsed);
    expect(node).toMatchObject({ event: "node.changed", data: { name: body.node.name } });
    expect(model).toMatchObject({ event: "model.changed", data: { name: input.name } });
    expect(Number(model?.id)).toBeGreaterThan(Number(node?.id));
  });

  it("sends only the domain's events: each live and replayed frame reads as its type's payload", async () => {
    const stream = await events();
    await api.client.agents.heartbeat.$post({ json: heartbeat() });
    await api.client.models.$post({ json: modelInput() });
    await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: 1, cpuCores: null, gpus: null, replicas: null },
    });
    const live = await stream.take(3);
    const replayed = await (await events({ "Last-Event-ID": "0" })).take(3);

    // The store's log is trusted, not parsed, on the way out (packages/store events.ts): checked here.
    for (const frame of [...live, ...replayed]) expect(liveEventOf(frame), frame.data).not.toBeNull();
  });

  it("resumes after Last-Event-ID with exactly the events that came later, in order, then goes live", async () => {
    const first = await events();
    await api.client.agents.heartbeat.$post({ json: heartbeat() });
    const [mark] = await first.take(1);
    await api.client.models.$post({ json: modelInput() });
    await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: 1, cpuCores: null, gpus: null, replicas: null },
    });
    const later = await first.take(2);

    const resumed = await events({ "Last-Event-ID": mark?.id ?? "" });
    const replayed = await resumed.take(2);
    const live = heartbeat();
    await api.client.agents.heartbeat.$post({ json: live });
    const next = await resumed.next();

    expect(replayed.map(parsed)).toEqual(later.map(parsed));
    expect(replayed.map((e) => e.event)).toEqual(["model.changed", "quota.changed"]);
    expect(next.event).toBe("node.changed");
    expect(dataOf(next)).toMatchObject({ name: live.node.name });
  });

  it("also resumes from ?lastEventId= (for clients that cannot set headers)", async () => {
    const first = await events();
    await api.client.models.$post({ json: modelInput() });
    const [mark] = await first.take(1);
    await api.client.models.$post({ json: modelInput() });
    const [after] = await first.take(1);

    const resumed = await events({}, `?lastEventId=${mark?.id ?? ""}`);

    expect(parsed(await resumed.next())).toEqual(after && parsed(after));
  });

  it("sends a heartbeat comment while nothing happens", async () => {
    const app = new Hono().route(
      "/events",
      eventRoutes(new EventHub(), { since: async () => [] }, { heartbeatMs: 20 }),
    );

    const stream = await EventStream.of(await app.request("/events"));
    open.push(stream);

    await expect(stream.comment("heartbeat")).resolves.toBeUndefined();
  });
});
