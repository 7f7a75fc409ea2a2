import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";

type Fetch = Parameters<typeof getRequestListener>[0];

/** Answers a request itself from Node's request and response (true), or leaves it to Hono (false). */
export type DirectListener = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

export type Listener = { server: Server; url: string };

/** `host:port` as an operator types it, with brackets around an IPv6 address. */
const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/** Why a listen failed, in words; the address is in every message so the operator sees which one. */
function listenError(err: unknown, at: string): Error {
  const code = err instanceof Error && "code" in err ? err.code : undefined;
  if (code === "EADDRINUSE") return new Error(`cannot listen on ${at}: the address is already in use`);
  if (code === "EACCES") return new Error(`cannot listen on ${at}: permission denied`);
  if (code === "EADDRNOTAVAIL") return new Error(`cannot listen on ${at}: no such address on this machine`);
  return new Error(`cannot listen on ${at}: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * Takes the port before anything else starts, so a busy one stops start-up at once, before the
 * store is opened (a second `llmgw serve` on the same data directory must not open its database).
 * `direct` sees each request first (the request path answers /v1 from Node's request itself);
 * what it leaves goes to `fetch` through @hono/node-server.
 */
export async function listen(
  at: { host: string; port: number },
  fetch: Fetch,
  direct: DirectListener = () => false,
): Promise<Listener> {
  const hono = getRequestListener(fetch);
  const server = createServer((incoming, outgoing) => {
    if (!direct(incoming, outgoing)) void hono(incoming, outgoing);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (err) => reject(listenError(err, hostPort(at.host, at.port))));
    server.listen(at.port, at.host);
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://${hostPort(address.address, address.port)}` };
}
