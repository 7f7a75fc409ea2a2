import type { Context } from "hono";
import type { Principal } from "./principal";

type Open = { token: string; session: string | null; end: () => void };

/**
 * The event streams open in this process, by who opened them. An SSE response can stay open for
 * days; without this, revoking a token or signing out would leave its stream delivering. Streams
 * opened in another process sharing the PostgreSQL end when they reconnect (the check runs again).
 */
export class LiveStreams {
  readonly #open = new Set<Open>();

  /**
   * Wraps an event-stream response so `endToken`/`endSession` can close it, and closes it by itself
   * after `closeInMs` (what is left of its session), so a stream is authorized again at least that
   * often.
   */
  follow(c: Context, principal: Principal, closeInMs: number | null): void {
    const body = c.res.body;
    if (!body || !c.res.headers.get("content-type")?.startsWith("text/event-stream")) return;
    const reader = body.getReader();
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const forget = () => {
      this.#open.delete(entry);
      if (timer !== null) clearTimeout(timer);
    };
    const close = () => {
      try {
        controller?.close();
      } catch {
        // Closed already: by the client going away, or by the source ending.
      }
    };
    const entry: Open = {
      token: principal.name,
      session: principal.session,
      end: () => {
        forget();
        // Cancelling the source aborts the route's stream (its onAbort unsubscribes from the hub).
        reader.cancel().catch(() => undefined);
        close();
      },
    };
    const wrapped = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      pull: async (c) => {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            forget();
            close();
          } else {
            c.enqueue(chunk.value);
          }
        } catch (err) {
          forget();
          c.error(err);
        }
      },
      cancel: (reason) => {
        forget();
        return reader.cancel(reason);
      },
    });
    this.#open.add(entry);
    if (closeInMs !== null) {
      // setTimeout holds at most ~24.8 days; a longer wait ends the stream early, which only means
      // a reconnect and a fresh check.
      timer = setTimeout(entry.end, Math.min(closeInMs, 2 ** 31 - 1));
      timer.unref?.();
    }
    const { status, headers } = c.res;
    c.res = undefined;
    c.res = new Response(wrapped, { status, headers });
  }

  endToken(name: string): void {
    for (const open of [...this.#open]) if (open.token === name) open.end();
  }

  endSession(idSha256: string): void {
    for (const open of [...this.#open]) if (open.session === idSha256) open.end();
  }

  get size(): number {
    return this.#open.size;
  }
}
