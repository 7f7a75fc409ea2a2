/**
 * Whether a replica's endpoint is llmgw itself (SPEC §7.5a): its own port on a loopback address
 * (127.0.0.0/8, ::1, localhost) or the unspecified one (0.0.0.0, ::), which a connection from this
 * machine also reaches. Requests routed there would come back into llmgw and fill the model's
 * slots with themselves. The same port on another address is another machine's server.
 */
export function loopsBackTo(endpoint: string, ownPort: number): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return port === ownPort && isThisMachine(url.hostname);
}

/** Loopback, or the unspecified address (0.0.0.0, ::, ::ffff:0.0.0.0): a connection to it stays here. */
function isThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    isLoopback(host) || host === "0.0.0.0" || host === "[::]" || /^\[::ffff:0:[0-9a-f]{1,4}\]$/.test(host)
  );
}

/**
 * Whether a host is this machine's loopback, the one rule for every question that asks it (a
 * server without tokens listens only there and answers only requests addressed there; an endpoint
 * there on llmgw's own port is llmgw): `localhost` and its subdomains, 127.0.0.0/8, ::1 and
 * 127.x mapped into IPv6. The host as the URL parser writes it (IPv6 in brackets) or as an
 * operator types it in the configuration (IPv6 bare).
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  // IPv4 as the URL parser writes it (dotted quads, whatever form was typed).
  const quad = /^(\d+)\.\d+\.\d+\.\d+$/.exec(host);
  if (quad) return quad[1] === "127";
  const v6 = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (v6 === "::1") return true;
  // An IPv4-mapped address (::ffff:127.0.0.1, written ::ffff:7f00:1 by the parser).
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(v6);
  return mapped !== null && Number.parseInt(mapped[1] ?? "", 16) >> 8 === 127;
}
