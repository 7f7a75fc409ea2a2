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

function isThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  // IPv4 as the URL parser writes it (dotted quads, whatever form was typed).
  const quad = /^(\d+)\.\d+\.\d+\.\d+$/.exec(host);
  if (quad) return quad[1] === "127" || host === "0.0.0.0";
  if (!host.startsWith("[")) return false;
  const v6 = host.slice(1, -1);
  if (v6 === "::1" || v6 === "::") return true;
  // An IPv4-mapped address (::ffff:127.0.0.1, written ::ffff:7f00:1 by the parser).
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(v6);
  return mapped !== null && (mapped[1] === "0" || Number.parseInt(mapped[1] ?? "", 16) >> 8 === 127);
}
