import type { Readable } from "node:stream";

// SPEC §10.5a: a download that receives nothing for `huggingface.idleSeconds` is cut (hubHttp's
// socket timeout), and so is a trickle: a byte now and then keeps a socket busy forever, so the
// rate is checked too, and under 1 kB/s over a whole idle window the connection is cut as well.
// Either way the writer resumes it with Range, as after any broken connection.

const MIN_BYTES_PER_SECOND = 1024;

/** Watches `body` while it is read; returns how to stop watching. */
export function cutTrickle(body: Readable, done: () => number, idleMs: number, what: string): () => void {
  let last = done();
  const floor = (idleMs / 1000) * MIN_BYTES_PER_SECOND;
  const timer = setInterval(() => {
    const now = done();
    if (now - last < floor) {
      body.destroy(new Error(`${what} came at under 1 kB/s for ${idleMs / 1000} s`));
    }
    last = now;
  }, idleMs);
  timer.unref();
  return () => clearInterval(timer);
}
