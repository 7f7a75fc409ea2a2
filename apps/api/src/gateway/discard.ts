import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

// A body over `gateway.bodyLimitMB` is answered 413 with `Connection: close` before it has all
// come. Node closes such a connection as soon as the answer is written; the client is still
// sending, the bytes it sends land on a closed socket, and the kernel answers them with a reset
// that can reach the client before it has read the 413 (the `openai` SDK then says "Connection
// error.", fetch EPIPE). So the rest of the body is read and dropped (never kept) after the answer,
// and the connection closes once it has all come, or once it passes a bound of bytes or time:
// then a client that keeps sending is cut, its 413 long since out.

/** At most this long spent reading a refused body's rest. */
const DISCARD_MS = 30_000;

/**
 * Reads and drops the rest of `incoming`'s body, at most `boundBytes` more, and delays the close of
 * its connection (Node's `destroySoon` once the answer is out) until it has all come.
 */
export function discardRest(incoming: IncomingMessage, boundBytes: number): void {
  const socket = incoming.socket as Socket | null;
  if (!socket || socket.destroyed) return;
  let dropped = 0;
  let drained = incoming.readableEnded;
  let closeWanted = false;
  const close = () => {
    clearTimeout(timer);
    if (socket.destroyed) return;
    // As Node's own destroySoon: once the answer is ended, its last bytes go out before the socket.
    if (closeWanted && !socket.writableFinished) socket.once("finish", () => socket.destroy());
    else socket.destroy();
  };
  const timer = setTimeout(close, DISCARD_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > boundBytes) close();
  };
  incoming.on("data", onData);
  incoming.once("end", () => {
    drained = true;
    incoming.off("data", onData);
    if (closeWanted) close();
  });
  incoming.once("close", () => {
    if (closeWanted) close();
  });
  socket.once("close", () => clearTimeout(timer));
  // Node calls this once the 413 is written: the answer is out (our FIN follows it), the reading
  // goes on, and the socket is destroyed only once nothing more is coming.
  socket.destroySoon = () => {
    closeWanted = true;
    if (socket.writable) socket.end();
    if (drained) close();
  };
  incoming.resume();
}
