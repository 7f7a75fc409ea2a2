import type { Context } from "hono";
import { openStreamOf } from "../events/openStream";
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
   * Lets `endToken`/`endSession` close an event-stream response, and closes it by itself after
   * `closeInMs` (what is left of its session), so a stream is authorized again at least that often.
   */
  follow(c: Context, principal: Principal, closeInMs: number | null): void {
    const stream = openStreamOf(c.res);
    if (!stream) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const entry: Open = { token: principal.name, session: principal.session, end: () => stream.end() };
    this.#open.add(entry);
    stream.whenClosed(() => {
      this.#open.delete(entry);
      if (timer !== null) clearTimeout(timer);
    });
    if (closeInMs !== null && !stream.closed) {
      // setTimeout holds at most ~24.8 days; a longer wait ends the stream early, which only means
      // a reconnect and a fresh check.
      timer = setTimeout(entry.end, Math.min(closeInMs, 2 ** 31 - 1));
      timer.unref?.();
    }
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
