import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";

// SPEC §10.1: the token goes to the Hub as `Authorization: Bearer` and never to a host a redirect
// leads to (the Hub sends downloads to a CDN on another origin). Neither `fetch` nor undici can be
// told "this origin only", so redirects are followed here, one hop at a time, and each hop gets
// the token only when it is on the Hub's own origin.

/** Where the Hub is and the token for it (`huggingface:` in llmgw.yaml, else HF_ENDPOINT / HF_TOKEN). */
export interface HubAccess {
  /** The Hub's base URL, without a trailing slash: `https://huggingface.co` or a mirror of it. */
  endpoint: string;
  token: string | null;
}

/** The Hub answered, and said no: its status and the `X-Error-Code` it gives (whatever the status). */
export class HubRefused extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string | null,
    readonly hubMessage: string | null,
    readonly url: string,
  ) {
    super(`the Hub answered ${status}${errorCode ? ` ${errorCode}` : ""} for ${new URL(url).pathname}`);
  }
}

const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The headers for one hop: the token only on the Hub's own origin. */
function headersFor(access: HubAccess, url: string, given: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (name.toLowerCase() !== "authorization") headers[name] = value;
  }
  if (access.token && new URL(url).origin === new URL(access.endpoint).origin) {
    headers.authorization = `Bearer ${access.token}`;
  }
  return headers;
}

function plainHeaders(init: HeadersInit | undefined): Record<string, string> {
  return Object.fromEntries(new Headers(init).entries());
}

/**
 * A `fetch` for `@huggingface/hub` and `@huggingface/gguf`: the token rule above, redirects followed
 * by hand, and every answer that is not a success thrown as `HubRefused` with the Hub's
 * `X-Error-Code` (the libraries' own errors drop that header). `rangesOnly`: a 200 to a request
 * with a Range is refused, so a server that ignores Range never has us read a whole file.
 */
export function hubFetch(access: HubAccess, options: { rangesOnly?: boolean } = {}): typeof fetch {
  const hubFetcher = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    let method = init.method ?? "GET";
    let body = init.body;
    const given = plainHeaders(init.headers);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await fetch(url, {
        ...init,
        method,
        body,
        headers: headersFor(access, url, given),
        redirect: "manual",
      });
      const location = res.headers.get("location");
      if (REDIRECTS.has(res.status) && location) {
        await res.body?.cancel();
        url = new URL(location, url).href;
        // 303, and 301/302 after a POST, become a GET as browsers do; 307/308 repeat the request.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw refusedBy(res.status, res.headers, url);
      }
      if (options.rangesOnly && res.status === 200 && "range" in given) {
        await res.body?.cancel();
        throw new Error(`${new URL(url).host} ignored a Range request: llmgw will not read the whole file`);
      }
      return res;
    }
    throw new Error(`more than ${MAX_REDIRECTS} redirects from ${new URL(url).host}`);
  };
  return hubFetcher as typeof fetch;
}

function refusedBy(status: number, headers: Headers | Record<string, unknown>, url: string): HubRefused {
  const get = (name: string): string | null => {
    if (headers instanceof Headers) return headers.get(name);
    const value = headers[name.toLowerCase()];
    return typeof value === "string" ? value : null;
  };
  return new HubRefused(status, get("x-error-code"), get("x-error-message"), url);
}

/** A download's answer: its status and headers, and the body as a Node stream. */
export interface HubDownload {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** Where the bytes came from after redirects (for messages). */
  url: string;
}

// Downloads go over node:http(s), not undici: Node's own HTTP parser is native, undici's is
// WebAssembly that copies every body chunk out of its memory. Measured on a 1 GB file from the
// stand-in Hub, receiving alone cost 0.35 s of CPU per GB against 0.8 s with undici's `request`.
const agents = {
  "http:": new HttpAgent({ keepAlive: true }),
  "https:": new HttpsAgent({ keepAlive: true }),
};

/** One request, answered with its head; the body is left to read. */
function requestOnce(
  url: string,
  init: { method: string; headers: Record<string, string>; signal?: AbortSignal; idleMs: number },
): Promise<IncomingMessage> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : target.protocol === "http:" ? httpRequest : null;
  if (!send) return Promise.reject(new Error(`cannot download from ${target.protocol} URLs`));
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: init.method,
      headers: init.headers,
      signal: init.signal,
      agent: agents[target.protocol as "http:" | "https:"],
    });
    // Silent for idleMs, before the head or between body chunks: the connection is cut and the
    // writer resumes it.
    req.setTimeout(init.idleMs, () =>
      req.destroy(new Error(`${target.host} sent nothing for ${init.idleMs / 1000} s`)),
    );
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}

/**
 * GET for the bytes of a file: the same token rule and redirects as `hubFetch`. Success and 416
 * are returned (the writer reads them); any other refusal is thrown as `HubRefused`. `idleMs`: a
 * connection that sends nothing for this long is cut, and the writer resumes it.
 */
export async function hubGet(
  access: HubAccess,
  url: string,
  options: {
    headers?: Record<string, string>;
    method?: "GET" | "HEAD";
    signal?: AbortSignal;
    idleMs?: number;
    /** False: answer the first hop's redirect instead of following it (an access check). */
    follow?: boolean;
  },
): Promise<HubDownload> {
  let at = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await requestOnce(at, {
      method: options.method ?? "GET",
      headers: headersFor(access, at, options.headers ?? {}),
      signal: options.signal,
      idleMs: options.idleMs ?? 60_000,
    });
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && typeof location === "string" && options.follow !== false) {
      res.resume();
      at = new URL(location, at).href;
      continue;
    }
    if (status >= 400 && status !== 416) {
      res.resume();
      throw refusedBy(status, res.headers, at);
    }
    return { status, headers: res.headers, body: res, url: at };
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects from ${new URL(url).host}`);
}

/** `<endpoint>/<repo>/resolve/<commit>/<path>`: a file's bytes at one commit (SPEC §10.1). */
export function resolveUrl(access: HubAccess, repo: string, commit: string, path: string): string {
  const segments = path.split("/").map(encodeURIComponent).join("/");
  return `${access.endpoint}/${repo}/resolve/${encodeURIComponent(commit)}/${segments}`;
}
