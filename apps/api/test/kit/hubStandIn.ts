import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

// A stand-in for the Hugging Face Hub, on loopback, answering as the real one does (the shapes of
// huggingface.js's calls and huggingface_hub's error handling): a revision's info with its `sha`,
// the tree (paged with a `Link: rel="next"` header), paths-info, and `resolve`, which answers a
// file kept in git itself and sends an LFS file to a second origin (the CDN) with a 302, as the
// Hub does. Refusals carry `X-Error-Code`: `RepoNotFound` (401 without a token, so a name cannot
// be probed; 404 with one), `RevisionNotFound`, `EntryNotFound`, `GatedRepo` (401 without a
// token, 403 with one that has no access). Both origins honour Range. Knobs make a file slow, cut
// a connection once, or fail; every request is recorded with the origin it reached.

/** One file of a stand-in repo: its bytes come from a file on disk (sparse is fine) or memory. */
export interface StandInFile {
  path: string;
  /** On disk: read by range, never whole. */
  file?: string;
  data?: Buffer;
  /** Kept in LFS (a 302 to the CDN, a sha256 listed) or in git (served by the Hub itself). */
  lfs: boolean;
  /** What the listing says; computed from the bytes when not given (a test lies with it, a big file skips the reading). */
  sha256?: string;
  /** The listed size; the real one when not given. */
  listedBytes?: number;
  /** Members of its tree entry replaced as they are, of any kind (a hostile Hub's `size: "12"`). */
  listedAs?: Record<string, unknown>;
}

export interface StandInRepo {
  repo: string;
  /** Branches and tags → commit; `main` at a generated commit unless given. */
  revisions?: Record<string, string>;
  gated?: boolean;
  files: StandInFile[];
}

export interface HubRequest {
  origin: "hub" | "cdn";
  method: string;
  path: string;
  range: string | null;
  authorization: string | null;
}

export interface HubKnobs {
  /** Bytes per second a download is sent at (per connection); null: as fast as it goes. */
  bytesPerSecond: number | null;
  /** The next download of this path is cut after this many bytes (then cleared). */
  cutAfter: Map<string, number>;
  /** The next download of this path falls silent after this many bytes, holding the connection open (then cleared). */
  stallAfter: Map<string, number>;
  /** Statuses the next downloads of a path answer, one per request. */
  failNext: Map<string, number[]>;
  /** Tree entries per page. */
  pageSize: number;
  /**
   * Answers a request before the stand-in does (hostileHub.ts's cases); true when it answered.
   * Null: the stand-in answers everything itself.
   */
  intercept: ((at: Intercepted) => boolean | Promise<boolean>) | null;
}

/** A request a hostile case may answer instead of the stand-in. */
export interface Intercepted {
  origin: "hub" | "cdn";
  url: URL;
  req: IncomingMessage;
  res: ServerResponse;
}

interface Served {
  entry: StandInFile;
  bytes: number;
  sha256: string;
  gitOid: string;
  open(start: number, end: number): Readable;
}

interface RepoState {
  repo: string;
  revisions: Record<string, string>;
  gated: boolean;
  files: Served[];
}

export class StandInHub {
  readonly requests: HubRequest[] = [];
  readonly knobs: HubKnobs = {
    bytesPerSecond: null,
    cutAfter: new Map(),
    stallAfter: new Map(),
    failNext: new Map(),
    pageSize: 1000,
    intercept: null,
  };
  /** Tokens the Hub accepts, and the gated repos each may download. */
  readonly tokens = new Map<string, Set<string>>();
  readonly #repos = new Map<string, RepoState>();
  #hub: Server;
  #cdn: Server;
  url = "";
  cdnUrl = "";

  constructor() {
    this.#hub = createServer((req, res) => void this.#answer("hub", req, res));
    this.#cdn = createServer((req, res) => void this.#answer("cdn", req, res));
  }

  static async start(): Promise<StandInHub> {
    const hub = new StandInHub();
    hub.url = await listen(hub.#hub);
    hub.cdnUrl = await listen(hub.#cdn);
    return hub;
  }

  async addRepo(spec: StandInRepo): Promise<{ commit: string }> {
    const files = await Promise.all(spec.files.map(servedOf));
    const commit = createHash("sha1").update(`${spec.repo}:${Math.random()}`).digest("hex");
    const revisions = spec.revisions ?? { main: commit };
    this.#repos.set(spec.repo, { repo: spec.repo, revisions, gated: spec.gated ?? false, files });
    return { commit: Object.values(revisions)[0] ?? commit };
  }

  /** Requests to the Hub's or the CDN's origin, in order. */
  requestsTo(origin: "hub" | "cdn"): HubRequest[] {
    return this.requests.filter((r) => r.origin === origin);
  }

  async close(): Promise<void> {
    for (const server of [this.#hub, this.#cdn]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  async #answer(origin: "hub" | "cdn", req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const header = (name: string) =>
      typeof req.headers[name] === "string" ? (req.headers[name] as string) : null;
    this.requests.push({
      origin,
      method: req.method ?? "GET",
      path: decodeURIComponent(url.pathname),
      range: header("range"),
      authorization: header("authorization"),
    });
    try {
      if (this.knobs.intercept && (await this.knobs.intercept({ origin, url, req, res }))) return;
      if (origin === "cdn") return await this.#cdnFile(url, req, res);
      const api = /^\/api\/models\/([^/]+\/[^/]+)\/(revision|tree|paths-info)\/([^/]+)(?:\/(.*))?$/.exec(
        url.pathname,
      );
      if (api) return await this.#api(api, url, req, res);
      const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
      if (resolve) return await this.#resolve(resolve, req, res);
      refuse(res, 404, null, "Not Found");
    } catch (err) {
      if (!res.headersSent) refuse(res, 500, null, String(err));
      else res.destroy();
    }
  }

  /** The repo and commit a request names, or the Hub's refusal sent (and null). */
  #at(repo: string, revision: string, req: IncomingMessage, res: ServerResponse) {
    const state = this.#repos.get(repo);
    const token = this.#tokenOf(req);
    if (!state) {
      refuse(res, token === null ? 401 : 404, "RepoNotFound", "Repository not found");
      return null;
    }
    const rev = decodeURIComponent(revision);
    const commit = state.revisions[rev] ?? (Object.values(state.revisions).includes(rev) ? rev : null);
    if (rev === "HEAD" && state.revisions.main) return { state, commit: state.revisions.main, token };
    if (!commit) {
      refuse(res, 404, "RevisionNotFound", `Invalid rev id: ${rev}`);
      return null;
    }
    return { state, commit, token };
  }

  #tokenOf(req: IncomingMessage): string | null {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    return m?.[1] ?? null;
  }

  async #api(m: RegExpExecArray, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [, repo = "", kind, revision = ""] = m;
    const at = this.#at(repo, revision, req, res);
    if (!at) return;
    const { state, commit } = at;
    if (kind === "revision") {
      const info: Record<string, unknown> = { _id: commit.slice(0, 24), id: state.repo, private: false };
      info.gated = state.gated ? "manual" : false;
      if (url.searchParams.getAll("expand").includes("sha")) info.sha = commit;
      return json(res, info);
    }
    if (kind === "paths-info") {
      const body = JSON.parse(await text(req)) as { paths?: string[] };
      const wanted = new Set(body.paths ?? []);
      return json(res, state.files.filter((f) => wanted.has(f.entry.path)).map(treeEntry));
    }
    const cursor = Number(url.searchParams.get("cursor") ?? 0);
    const page = state.files.slice(cursor, cursor + this.knobs.pageSize);
    const next = cursor + page.length;
    if (next < state.files.length) {
      const link = new URL(url.pathname, this.url);
      link.search = url.search;
      link.searchParams.set("cursor", String(next));
      res.setHeader("Link", `<${link.href}>; rel="next"`);
    }
    json(res, page.map(treeEntry));
  }

  async #resolve(m: RegExpExecArray, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [, repo = "", revision = "", path = ""] = m;
    const at = this.#at(repo, revision, req, res);
    if (!at) return;
    const { state, commit, token } = at;
    if (state.gated) {
      const known = token === null ? null : this.tokens.get(token);
      if (!known)
        return refuse(res, 401, token === null ? "GatedRepo" : null, "Access to this model is restricted");
      if (!known.has(state.repo)) return refuse(res, 403, "GatedRepo", "Access to this model is restricted");
    }
    const file = state.files.find((f) => f.entry.path === decodeURIComponent(path));
    if (!file) return refuse(res, 404, "EntryNotFound", "Entry not found");
    res.setHeader("X-Repo-Commit", commit);
    if (file.entry.lfs) {
      res.writeHead(302, {
        Location: `${this.cdnUrl}/blob/${file.sha256}?path=${encodeURIComponent(file.entry.path)}`,
        "X-Linked-Size": String(file.bytes),
        "X-Linked-Etag": `"${file.sha256}"`,
      });
      res.end();
      return;
    }
    await this.#send(file, req, res);
  }

  async #cdnFile(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sha = /^\/blob\/([0-9a-f]{64})$/.exec(url.pathname)?.[1];
    const file = [...this.#repos.values()].flatMap((r) => r.files).find((f) => f.sha256 === sha);
    if (!file) return refuse(res, 404, null, "NoSuchKey");
    await this.#send(file, req, res);
  }

  async #send(file: Served, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = file.entry.path;
    const failing = this.knobs.failNext.get(path)?.shift();
    if (failing !== undefined) return refuse(res, failing, null, "stand-in failure");
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), file.bytes - 1) : file.bytes - 1;
    if (range && start >= file.bytes) {
      res.writeHead(416, { "Content-Range": `bytes */${file.bytes}` });
      res.end();
      return;
    }
    res.writeHead(range ? 206 : 200, {
      "Content-Length": String(end - start + 1),
      "Content-Type": "application/octet-stream",
      "Accept-Ranges": "bytes",
      ETag: `"${file.sha256}"`,
      ...(range ? { "Content-Range": `bytes ${start}-${end}/${file.bytes}` } : {}),
    });
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    const cut = this.knobs.cutAfter.get(path);
    if (cut !== undefined) this.knobs.cutAfter.delete(path);
    const stall = this.knobs.stallAfter.get(path);
    if (stall !== undefined) this.knobs.stallAfter.delete(path);
    const paced = pace(this.knobs, cut ?? null, () => res.destroy(), stall ?? null);
    await pipeline(file.open(start, end), paced, res).catch(() => res.destroy());
  }
}

/**
 * Sends at the knob's rate, ends the connection abruptly after `cutAfter` bytes, and sends nothing
 * more after `stallAfter` bytes (the connection stays open until the client gives up on it).
 */
function pace(
  knobs: HubKnobs,
  cutAfter: number | null,
  cut: () => void,
  stallAfter: number | null = null,
): Transform {
  let sent = 0;
  const began = Date.now();
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (stallAfter !== null && sent + chunk.length > stallAfter) {
        this.push(chunk.subarray(0, Math.max(0, stallAfter - sent)));
        sent = stallAfter;
        return; // never called back: silence
      }
      if (cutAfter !== null && sent + chunk.length > cutAfter) {
        this.push(chunk.subarray(0, Math.max(0, cutAfter - sent)));
        sent = cutAfter;
        setTimeout(cut, 20);
        return;
      }
      sent += chunk.length;
      const rate = knobs.bytesPerSecond;
      const due = rate === null ? 0 : began + (sent / rate) * 1000 - Date.now();
      if (due > 0) setTimeout(() => callback(null, chunk), due);
      else callback(null, chunk);
    },
  });
}

function treeEntry(f: Served) {
  const { path, lfs, listedAs } = f.entry;
  const size = f.entry.listedBytes ?? f.bytes;
  const entry = lfs
    ? {
        type: "file",
        oid: f.gitOid,
        size,
        path,
        lfs: { oid: f.entry.sha256 ?? f.sha256, size, pointerSize: 134, ...listedAs },
      }
    : { type: "file", oid: f.gitOid, size, path, ...listedAs };
  return entry;
}

async function servedOf(entry: StandInFile): Promise<Served> {
  const { file, data } = entry;
  const bytes = data ? data.length : (await stat(file ?? "")).size;
  const open = (start: number, end: number): Readable =>
    data
      ? Readable.from(pieces(data.subarray(start, end + 1)))
      : createReadStream(file ?? "", { start, end });
  // A digest given for an LFS file is taken as it is (a test that lies with it gets the real bytes
  // served; the README's and bench's gigabytes are not read at start): its git id is the pointer's.
  if (entry.lfs && entry.sha256) {
    const pointer = createHash("sha1").update(`lfs pointer ${entry.sha256}`).digest("hex");
    return { entry, bytes, sha256: entry.sha256, gitOid: pointer, open };
  }
  const sha256 = createHash("sha256");
  const sha1 = createHash("sha1").update(`blob ${bytes}\0`);
  for await (const chunk of bytes > 0 ? open(0, bytes - 1) : []) {
    sha256.update(chunk as Buffer);
    sha1.update(chunk as Buffer);
  }
  return { entry, bytes, sha256: sha256.digest("hex"), gitOid: sha1.digest("hex"), open };
}

/** 64 KiB at a time, as a file is read, so pacing and cutting work on a buffer too. */
function* pieces(data: Buffer): Generator<Buffer> {
  for (let at = 0; at < data.length; at += 65_536) yield data.subarray(at, at + 65_536);
}

function refuse(res: ServerResponse, status: number, code: string | null, message: string): void {
  res.writeHead(status, {
    "Content-Type": "application/json",
    ...(code ? { "X-Error-Code": code, "X-Error-Message": message } : {}),
  });
  res.end(JSON.stringify({ error: message }));
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
