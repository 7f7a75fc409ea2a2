import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { EventData } from "@llmgw/domain";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { type CommittedEvent, EventHub } from "../src/events/eventHub";
import { type EventLog, type OpenStream, openStreamOf } from "../src/events/openStream";
import { type EventRouteOptions, eventRoutes } from "../src/routes/events";
import { EventStream, parsed } from "./sse";

// How GET /events carries one event to many streams: encoded once, written to each Node response
// directly (and through the body stream in process), a slow reader dropped, not buffered for.
// events.test.ts covers the contract through the whole app.

const NO_LOG: EventLog = { since: async () => [] };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let nextId = 1;
/** A small stored event; `data` may be longer (padding in the name) or count its encodings. */
const event = (data: EventData<"model.removed"> = { name: `m-${nextId}` }): CommittedEvent => ({
  id: nextId++,
  type: "model.removed",
  data,
});

/** The events route alone, over a real socket; `streams` are the server side of each open stream. */
async function server(hub: EventHub, log: EventLog = NO_LOG, options: EventRouteOptions = {}) {
  const streams: OpenStream[] = [];
  const app = new Hono()
    .use(async (c, next) => {
      await next();
      const stream = openStreamOf(c.res);
      if (stream) streams.push(stream);
    })
    .route("/events", eventRoutes(hub, log, options));
  const http = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => http.once("listening", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/events`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        (http as unknown as { closeAllConnections(): void }).closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { url, streams };
}

async function opened(url: string, lastEventId?: string): Promise<EventStream> {
  const stream = await EventStream.open(url, lastEventId);
  cleanups.push(() => stream.close());
  return stream;
}

async function until(ready: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("one event to many streams", () => {
  it("is encoded once, whatever the number of streams (in process and over sockets)", async () => {
    const hub = new EventHub();
    const { url } = await server(hub);
    const app = new Hono().route("/events", eventRoutes(hub, NO_LOG));
    const overSockets = await Promise.all([opened(url), opened(url), opened(url)]);
    const inProcess = await Promise.all(
      [1, 2].map(async () => {
        const stream = await EventStream.of(await app.request("/events"));
        cleanups.push(() => stream.close());
        return stream;
      }),
    );
    let encoded = 0;
    const counted = {
      name: "once",
      toJSON: () => {
        encoded++;
        return { name: "once" };
      },
    };
    const published = event(counted);

    hub.publish([published]);

    for (const stream of [...overSockets, ...inProcess]) {
      expect(parsed(await stream.next())).toEqual({
        id: String(published.id),
        event: "model.removed",
        data: { name: "once" },
      });
    }
    expect(encoded).toBe(1);
  });

  it("writes to the socket in order: the opening comment, events, heartbeats, then the end", async () => {
    const hub = new EventHub();
    const { url, streams } = await server(hub, NO_LOG, { heartbeatMs: 20 });
    const stream = await opened(url);
    const sent = [event(), event(), event()];

    for (const e of sent) hub.publish([e]);
    const got = await stream.take(3);
    await stream.comment("heartbeat");
    streams[0]?.end();

    expect(stream.comments[0]).toBe("llmgw events");
    expect(got.map((e) => e.id)).toEqual(sent.map((e) => String(e.id)));
    await expect(stream.next(2000)).rejects.toThrow("the event stream ended");
    expect(hub.listeners).toBe(0);
  });

  it("holds live events during a replay, then sends each id once, in order", async () => {
    const hub = new EventHub();
    const stored = [event(), event(), event()];
    const [first] = stored;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const log: EventLog = {
      since: async (id) => {
        await gate;
        return stored.filter((e) => e.id > id);
      },
    };
    const app = new Hono().route("/events", eventRoutes(hub, log));
    const stream = await EventStream.of(
      await app.request("/events", { headers: { "Last-Event-ID": String((first?.id ?? 0) - 1) } }),
    );
    cleanups.push(() => stream.close());
    const live = event();

    // Published while the replay reads: the last stored one again (committed and published), then a new one.
    hub.publish(stored.slice(2));
    hub.publish([live]);
    release();

    const got = await stream.take(4);
    expect(got.map((e) => Number(e.id))).toEqual([...stored, live].map((e) => e.id));
  });

  it("drops a stream whose client stops reading, in process", async () => {
    const hub = new EventHub();
    const app = new Hono().route("/events", eventRoutes(hub, NO_LOG, { maxBufferedBytes: 4096 }));
    const res = await app.request("/events");
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");

    for (let i = 0; i < 10; i++) hub.publish([event({ name: "x".repeat(1000) })]);

    expect(hub.listeners).toBe(0);
    await expect(reader.read()).rejects.toThrow("too slowly");
  });

  it("drops a stream whose client stops reading, over a socket", async () => {
    const hub = new EventHub();
    const { url, streams } = await server(hub, NO_LOG, { maxBufferedBytes: 256 * 1024 });
    let resume = () => {};
    const closed = new Promise<void>((resolve) => {
      const req = request(url, (res) => {
        res.pause();
        resume = () => res.resume();
        res.on("error", () => resolve());
        res.on("close", () => resolve());
      });
      req.on("error", () => resolve());
      req.end();
    });
    await until(() => hub.listeners === 1, "open stream");
    const padding = "x".repeat(64 * 1024);

    // The kernel's socket buffers take a few megabytes first; then the server's own buffer grows.
    let published = 0;
    while (hub.listeners > 0 && published < 2000) {
      hub.publish([event({ name: padding })]);
      published++;
      await new Promise((resolve) => setImmediate(resolve));
    }

    expect(hub.listeners).toBe(0);
    expect(streams[0]?.closed).toBe(true);
    // Reading again, the client finds its stream cut off (it would reconnect with Last-Event-ID).
    resume();
    await closed;
  });
});
