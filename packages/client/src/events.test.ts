import { makeReplica } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { EventStreamRefused, liveEventOf, liveEvents, type SseFrame, sseFrames } from "./events";

/** A body that arrives in the given chunks, as a socket might cut it. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const removed = (name: string) => `event: model.removed\ndata: ${JSON.stringify({ name })}\n\n`;

describe("sseFrames", () => {
  it("reads events, comments, multi-line data and any line ending, however the chunks fall", async () => {
    const text =
      ": llmgw events\n\nid: 7\nevent: a\ndata: one\ndata: two\n\r\n: heartbeat\r\rdata: plain\r\n\r\n";
    const expected: SseFrame[] = [
      { kind: "comment", text: "llmgw events" },
      { kind: "event", id: "7", event: "a", data: "one\ntwo" },
      { kind: "comment", text: "heartbeat" },
      { kind: "event", id: null, event: "message", data: "plain" },
    ];
    expect(await all(sseFrames(body(text)))).toEqual(expected);
    // One character at a time: a CRLF split across chunks is still one line end.
    expect(await all(sseFrames(body(...text)))).toEqual(expected);
  });

  it("dispatches nothing for a frame without data, and ignores retry and unknown fields", async () => {
    const frames = await all(sseFrames(body("id: 3\nevent: a\n\nretry: 10\nfoo: bar\ndata:x\n\n")));
    expect(frames).toEqual([{ kind: "event", id: null, event: "message", data: "x" }]);
  });
});

describe("liveEventOf", () => {
  it("types a frame by the domain's union, with a numeric id or none", () => {
    const replica = makeReplica();
    const event = liveEventOf({ id: "12", event: "replica.changed", data: JSON.stringify(replica) });
    expect(event).toEqual({ id: 12, type: "replica.changed", data: replica });
    if (event?.type === "replica.changed") expect(event.data.state).toBe(replica.state);
  });

  it("skips an unknown type, a payload not its type's, and data that is not JSON", () => {
    expect(liveEventOf({ id: "1", event: "model.renamed", data: "{}" })).toBeNull();
    expect(liveEventOf({ id: "1", event: "node.changed", data: '{"name":"n"}' })).toBeNull();
    expect(liveEventOf({ id: "1", event: "model.removed", data: "{" })).toBeNull();
  });
});

describe("liveEvents", () => {
  it("resumes after a drop with the last id it saw, and stops when aborted", async () => {
    const asked: (string | null)[] = [];
    const abort = new AbortController();
    const answers = [`id: 1\n${removed("a")}id: 2\n${removed("b")}`, `id: 3\n${removed("c")}`];
    const fake: typeof fetch = async (_url, init) => {
      asked.push(new Headers(init?.headers).get("last-event-id"));
      const next = answers.shift();
      if (next === undefined) abort.abort();
      return new Response(body(next ?? ""), { headers: { "content-type": "text/event-stream" } });
    };
    const events = liveEvents("http://llmgw.test/api/v1/events", {
      fetch: fake,
      signal: abort.signal,
      reconnectMs: 0,
      lastEventId: 0,
    });

    const seen = await all(events);

    expect(seen.map((e) => [e.id, e.type === "model.removed" ? e.data.name : null])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    expect(asked).toEqual(["0", "2", "3"]);
  });

  it("tells comments apart and throws when the answer is not an event stream", async () => {
    const comments: string[] = [];
    const once: typeof fetch = async () =>
      new Response(body(": heartbeat\n\n"), { headers: { "content-type": "text/event-stream" } });
    expect(
      await all(
        liveEvents("http://llmgw.test/", {
          fetch: once,
          reconnectMs: null,
          onComment: (t) => comments.push(t),
        }),
      ),
    ).toEqual([]);
    expect(comments).toEqual(["heartbeat"]);

    const refused: typeof fetch = async () => new Response("no", { status: 401 });
    await expect(all(liveEvents("http://llmgw.test/", { fetch: refused }))).rejects.toBeInstanceOf(
      EventStreamRefused,
    );
  });
});
