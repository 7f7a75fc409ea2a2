// The load bench's open event streams (GET /api/v1/events), read alongside the clients: each
// stream records every event id and the models it heard created or removed, so that afterwards
// every stream can be checked to have had every event, in order, and every acknowledged change.
import { Agent, request } from "node:http";

export type Stream = {
  ids: Set<number>;
  lastId: number;
  outOfOrder: number;
  changed: Set<string>;
  removed: Set<string>;
  /** Why it ended before the bench closed it, if it did. */
  endedEarly: string | null;
};

const agent = new Agent({ keepAlive: false });

export function openStream(base: URL): Promise<{ stream: Stream; close: () => void }> {
  const stream: Stream = {
    ids: new Set(),
    lastId: 0,
    outOfOrder: 0,
    changed: new Set(),
    removed: new Set(),
    endedEarly: null,
  };
  let closing = false;
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, path: "/api/v1/events", agent }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /api/v1/events: ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          frame(stream, buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      });
      res.on("close", () => {
        if (!closing) stream.endedEarly ??= "the server ended the stream";
      });
      resolve({
        stream,
        close: () => {
          closing = true;
          req.destroy();
        },
      });
    });
    req.on("error", (err) => {
      if (!closing) stream.endedEarly ??= err.message;
      reject(err);
    });
    req.end();
  });
}

/** One SSE frame: comments (": heartbeat") carry no id; events are `id`, `event`, `data` lines. */
function frame(stream: Stream, text: string): void {
  let id = Number.NaN;
  let event = "";
  let data = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("id: ")) id = Number(line.slice(4));
    else if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (Number.isNaN(id)) return;
  if (id <= stream.lastId) stream.outOfOrder++;
  stream.lastId = id;
  stream.ids.add(id);
  if (event === "model.changed" || event === "model.removed") {
    const name = (JSON.parse(data) as { name?: unknown }).name;
    if (typeof name === "string") (event === "model.changed" ? stream.changed : stream.removed).add(name);
  }
}
