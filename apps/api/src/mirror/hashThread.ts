import { Worker } from "node:worker_threads";
import type { HashFile } from "./hashes";

/**
 * How fast the mirror reads a file for its digest: a 40 GB file takes about five minutes, and the
 * thread doing it uses about a sixth of a core (SHA-256 runs near 0.9 GB/s on a server core).
 */
export const HASH_BYTES_PER_SECOND = 128 * 1024 * 1024;

// The digest is computed off the event loop, in a worker thread at the lowest priority the system
// gives (nice 19, Linux: set on the thread itself), reading at most `rate` bytes a second: the
// request path never waits behind a multi-gigabyte read. The worker's code is a plain script (a
// string, not a module) so the bundled CLI carries it as it is. It reads one file at a time; a
// job is cancelled through a shared flag it checks between chunks.
const THREAD = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { openSync, readSync, closeSync, readlinkSync } = require("node:fs");
const { setPriority } = require("node:os");
try {
  const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  if (tid > 0) setPriority(tid, 19);
} catch {}
const CHUNK = 1024 * 1024;
const buffer = Buffer.allocUnsafe(CHUNK);
parentPort.on("message", ({ id, path, rate, cancel }) => {
  const cancelled = new Int32Array(cancel);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let fd = -1;
  try {
    fd = openSync(path, "r");
    const hash = createHash("sha256");
    const started = performance.now();
    let read = 0;
    for (;;) {
      if (Atomics.load(cancelled, 0) !== 0) throw new Error("cancelled");
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(n === CHUNK ? buffer : buffer.subarray(0, n));
      read += n;
      const ahead = (read / rate) * 1000 - (performance.now() - started);
      if (ahead > 1) Atomics.wait(pause, 0, 0, ahead);
    }
    parentPort.postMessage({ id, sha256: hash.digest("hex") });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  } finally {
    if (fd !== -1) closeSync(fd);
  }
});
`;

type Answer = { id: number; sha256?: string; error?: string };

/**
 * A HashFile that reads in a low-priority worker thread at `bytesPerSecond` at most. The thread
 * starts with the first file and keeps no process alive.
 */
export function hashInThread(bytesPerSecond = HASH_BYTES_PER_SECOND): HashFile {
  let worker: Worker | null = null;
  let next = 0;
  const waiting = new Map<number, (answer: Answer) => void>();
  const started = (): Worker => {
    if (worker) return worker;
    const thread = new Worker(THREAD, { eval: true });
    thread.unref();
    thread.on("message", (answer: Answer) => {
      const settle = waiting.get(answer.id);
      waiting.delete(answer.id);
      settle?.(answer);
    });
    thread.on("error", (err) => {
      worker = null;
      for (const settle of waiting.values()) settle({ id: -1, error: err.message });
      waiting.clear();
    });
    worker = thread;
    return thread;
  };
  return (path, signal) =>
    new Promise<string>((resolve, reject) => {
      signal.throwIfAborted();
      const id = next++;
      const cancel = new SharedArrayBuffer(4);
      const onAbort = () => Atomics.store(new Int32Array(cancel), 0, 1);
      signal.addEventListener("abort", onAbort, { once: true });
      waiting.set(id, (answer) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) reject(signal.reason);
        else if (answer.sha256 !== undefined) resolve(answer.sha256);
        else reject(new Error(answer.error ?? "the hashing thread stopped"));
      });
      started().postMessage({ id, path, rate: bytesPerSecond, cancel });
    });
}
