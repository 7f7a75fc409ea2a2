import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// An engine that behaves badly on purpose (SPEC §7.5a): a plain node:http server whose answer a
// test writes by hand, to send what no well-behaved engine would (trailers, a line of 50 MB, a
// cookie for llmgw's own session, a head and then silence). Every request it gets is kept.

export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A small, well-behaved JSON answer with `usage`: what the engine sends between hostile cases. */
export const answerPolitely: Behaviour = (_req, res) => {
  const body = JSON.stringify({
    id: "chatcmpl-polite",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: "fine" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
  });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

export class HostileEngine {
  /** What the next requests get; a test sets it. */
  behave: Behaviour = answerPolitely;
  readonly received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  /** Answers the engine began and whose connection has closed (finished or cut). */
  closed = 0;
  readonly #server: Server;
  #url = "";

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        this.received.push({ headers: req.headers, body });
        res.once("close", () => {
          this.closed++;
        });
        this.behave(req, res, body);
      });
    });
    this.#server.keepAliveTimeout = 60_000;
  }

  static async start(): Promise<HostileEngine> {
    const engine = new HostileEngine();
    engine.#server.listen(0, "127.0.0.1");
    await once(engine.#server, "listening");
    engine.#url = `http://127.0.0.1:${(engine.#server.address() as AddressInfo).port}`;
    return engine;
  }

  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Writes `total` bytes of `fill` to `res` in 64 KiB pieces, waiting for the socket to drain. */
export async function writeMany(res: ServerResponse, total: number, fill = "x"): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, fill);
  for (let sent = 0; sent < total; sent += piece.byteLength) {
    if (res.destroyed) return;
    const slice = total - sent < piece.byteLength ? piece.subarray(0, total - sent) : piece;
    if (!res.write(slice)) await once(res, "drain");
  }
}
