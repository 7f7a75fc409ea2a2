import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import {
  DEFAULT_HUB_IDLE_SECONDS,
  DEFAULT_HUB_TIMEOUT_SECONDS,
  type ReadBudget,
  rangeCapped,
} from "./bounds";

// SPEC §10.1: the token goes to the Hub as `Authorization: Bearer` and never to a host a redirect
// leads to (the Hub sends downloads to a CDN on another origin). Neither `fetch` nor undici can be
// told "this origin only", so redirects are followed here, one hop at a time, and each hop gets
// the token only when it is on the Hub's own origin.

/** Where the Hub is and the token for it (`huggingface:` in llmgw.yaml, else HF_ENDPOINT / HF_TOKEN). */
export interface HubAccess {
  /** The Hub's base URL, without a trailing slash: `https://huggingface.co` or a mirror of it. */
  endpoint: string;
  token: string | null;
  /** `huggingface.timeoutSeconds`: each listing, resolving and header call ends after this long. */
  timeoutSeconds?: number;
  /** `huggingface.idleSeconds`: a download under 1 kB/s for this long is cut and resumed. */
  idleSeconds?: number;
}

/** One call's deadline (SPEC §10.5a), in milliseconds. */
export const timeoutMsOf = (access: HubAccess) =>
  (access.timeoutSeconds ?? DEFAULT_HUB_TIMEOUT_SECONDS) * 1000;
export const idleMsOf = (access: HubAccess) => (access.idleSeconds ?? DEFAULT_HUB_IDLE_SECONDS) * 1000;

/** A call to the Hub ran past `huggingface.timeoutSeconds` (504 `hub_timeout`). */
export class HubTimeout extends Error {
  constructor(
    readonly url: string,
    readonly seconds: number,
  ) {
    super(`${new URL(url).host} did not answer within ${seconds} s`);
  }
}

/** A deadline passed: ours, or the same abort surfacing from a body the library was reading. */
export function isHubTimeout(err: unknown): boolean {
  if (err instanceof HubTimeout) return true;
  if (!(err instanceof Error)) return false;
  return err.name === "TimeoutError" || (err.cause instanceof Error && err.cause.name === "TimeoutError");
}

/** What one request to llmgw (a plan, a dry run) shares across its calls to the Hub. */
export interface HubCall {
  /** The asking client's: it going away ends the call. */
  signal?: AbortSignal | undefined;
  /** The listing's bounds (pages, bytes); none for header reads. */
  budget?: ReadBudget | undefined;
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
 * `X-Error-Code` (the libraries' own errors drop that header). SPEC §10.5a: each call ends after
 * `huggingface.timeoutSeconds` or when the asking client goes away; a listing's pages and bytes
 * count against `call.budget`. `rangesOnly`: a Range is asked uncompressed and its answer must be a
 * 206 of at most the range's length (a 200 would be the whole file; a gzip one could inflate to
 * anything), read no further than that.
 */
export function hubFetch(
  access: HubAccess,
  options: { rangesOnly?: boolean; call?: HubCall } = {},
): typeof fetch {
  const hubFetcher = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const deadline = AbortSignal.timeout(timeoutMsOf(access));
    const signals = [deadline, options.call?.signal, init.signal ?? undefined].filter((s) => s !== undefined);
    const signal = AbortSignal.any(signals);
    try {
      return await follow(access, url, init, signal, options);
    } catch (err) {
      if (deadline.aborted) throw new HubTimeout(url, timeoutMsOf(access) / 1000);
      throw err;
    }
  };
  return hubFetcher as typeof fetch;
}

async function follow(
  access: HubAccess,
  first: string,
  init: RequestInit,
  signal: AbortSignal,
  options: { rangesOnly?: boolean; call?: HubCall },
): Promise<Response> {
  let url = first;
  let method = init.method ?? "GET";
  let body = init.body;
  const given = plainHeaders(init.headers);
  const range = "range" in given ? rangeLength(given.range ?? "") : null;
  if ("range" in given) given["accept-encoding"] = "identity";
  else options.call?.budget?.page(`${method} ${url}`);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await fetch(url, {
      ...init,
      method,
      body,
      headers: headersFor(access, url, given),
      redirect: "manual",
      signal,
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
    if ("range" in given) return rangeAnswer(res, url, range, options.rangesOnly === true);
    const budget = options.call?.budget;
    if (!budget || !res.body) return res;
    return new Response(budget.read(res.body), { status: res.status, headers: res.headers });
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects from ${new URL(url).host}`);
}

/** A Range answer, checked: uncompressed, a 206 when `rangesOnly`, and read no further than asked. */
async function rangeAnswer(res: Response, url: string, length: number | null, rangesOnly: boolean) {
  const host = new URL(url).host;
  const refuse = async (why: string) => {
    await res.body?.cancel();
    return new Error(`${host} ${why}: llmgw will not read it`);
  };
  if (rangesOnly && res.status === 200) throw await refuse("ignored a Range request");
  const encoding = res.headers.get("content-encoding");
  if (encoding && encoding.toLowerCase() !== "identity")
    throw await refuse(`answered a Range request compressed (${encoding.slice(0, 20)})`);
  if (length === null || !res.body) return res;
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > length) throw await refuse(`answered ${declared} bytes to a range of ${length}`);
  return new Response(rangeCapped(res.body, length, host), { status: res.status, headers: res.headers });
}

/** The bytes `bytes=a-b` asks for; null for an open end. */
function rangeLength(range: string): number | null {
  const m = /^bytes=(\d+)-(\d+)$/.exec(range.trim());
  return m ? Number(m[2]) - Number(m[1]) + 1 : null;
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
      idleMs: options.idleMs ?? idleMsOf(access),
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
