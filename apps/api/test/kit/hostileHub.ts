import { createGzip } from "node:zlib";
import type { Intercepted } from "./hubStandIn";

// A hostile Hub (SPEC §10.5a): cases for the stand-in's `knobs.intercept`, each answering one kind
// of request as a broken or malicious Hub (or whatever answers at HF_ENDPOINT) might: a listing
// that inflates to 256 MiB, a `Link: rel=next` to itself, pages without end, a compressed or
// oversized answer to a Range, silence, a trickle. Each records when its connections opened and
// closed, so a test can tell how long the server held on. The rest the stand-in answers as usual.

export interface HostileCase {
  intercept(at: Intercepted): boolean | Promise<boolean>;
  /** Connections this case answered (or held), with when they opened and closed (ms since epoch). */
  readonly held: { openedAt: number; closedAt: number | null; bytesSent: number }[];
  /** Requests it answered. */
  readonly count: number;
}

const MiB = 1024 * 1024;
const isTree = (url: URL) => /^\/api\/models\/[^/]+\/[^/]+\/tree\//.test(url.pathname);
const isRevision = (url: URL) => /^\/api\/models\/[^/]+\/[^/]+\/revision\//.test(url.pathname);
/** The URL as the client asked it (the stand-in parses it against a placeholder origin). */
const askedUrl = ({ url, req }: Intercepted) =>
  new URL(`${url.pathname}${url.search}`, `http://${req.headers.host}`);
const isDownload = (at: Intercepted) => at.origin === "cdn" || /\/resolve\//.test(at.url.pathname);

/** A case from a test of which requests it takes and how it answers them. */
function hostileCase(
  takes: (at: Intercepted) => boolean,
  answer: (at: Intercepted, record: HostileCase["held"][number]) => void | Promise<void>,
): HostileCase {
  const held: HostileCase["held"] = [];
  let count = 0;
  return {
    held,
    get count() {
      return count;
    },
    async intercept(at) {
      if (!takes(at)) return false;
      count++;
      const record = { openedAt: Date.now(), closedAt: null as number | null, bytesSent: 0 };
      held.push(record);
      at.res.once("close", () => {
        record.closedAt = Date.now();
      });
      await answer(at, record);
      return true;
    },
  };
}

const bombs = new Map<string, Promise<Buffer>>();

/** `[`, `inflated` bytes of spaces, `]` gzipped: valid JSON (an empty list), a few hundred kB on the wire. */
export function gzipBomb(inflated: number): Promise<Buffer> {
  const key = String(inflated);
  let bomb = bombs.get(key);
  if (!bomb) {
    bomb = new Promise<Buffer>((resolve, reject) => {
      const gzip = createGzip({ level: 9 });
      const out: Buffer[] = [];
      gzip.on("data", (chunk: Buffer) => out.push(chunk));
      gzip.on("end", () => resolve(Buffer.concat(out)));
      gzip.on("error", reject);
      const spaces = Buffer.alloc(MiB, " ");
      gzip.write("[");
      for (let i = 0; i < Math.ceil(inflated / MiB); i++) gzip.write(spaces);
      gzip.end("]");
    });
    bombs.set(key, bomb);
  }
  return bomb;
}

export const hostile = {
  /** The tree, gzip-encoded, inflating to `inflated` bytes (256 MiB by default). */
  gzipListing(inflated = 256 * MiB): HostileCase {
    return hostileCase(
      (at) => isTree(at.url),
      async ({ res }) => {
        const body = await gzipBomb(inflated);
        res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
        res.end(body);
      },
    );
  },

  /** A tree page, empty, whose `Link: rel=next` names the very page asked for. */
  selfLinkListing(): HostileCase {
    return hostileCase(
      (at) => isTree(at.url),
      (at) => {
        const { res } = at;
        res.writeHead(200, {
          "Content-Type": "application/json",
          Link: `<${askedUrl(at).href}>; rel="next"`,
        });
        res.end("[]");
      },
    );
  },

  /** Tree pages without end: each empty, each naming a next page it never sent before. */
  endlessListing(): HostileCase {
    return hostileCase(
      (at) => isTree(at.url),
      (at) => {
        const { res, url } = at;
        const next = askedUrl(at);
        next.searchParams.set("cursor", String(Number(url.searchParams.get("cursor") ?? 0) + 1));
        res.writeHead(200, { "Content-Type": "application/json", Link: `<${next.href}>; rel="next"` });
        res.end("[]");
      },
    );
  },

  /** A Range answered 206 but gzip-encoded, inflating to `inflated` bytes. */
  gzipRange(inflated = 256 * MiB): HostileCase {
    return hostileCase(
      (at) => isDownload(at) && at.req.headers.range !== undefined,
      async ({ req, res }) => {
        const body = await gzipBomb(inflated);
        res.writeHead(206, {
          "Content-Type": "application/octet-stream",
          "Content-Encoding": "gzip",
          "Content-Range": `${(req.headers.range ?? "").replace("=", " ")}/${inflated}`,
        });
        res.end(body);
      },
    );
  },

  /** A Range answered 206 with `bytes` plain bytes (128 MiB by default), chunked, whatever was asked. */
  oversizedRange(bytes = 128 * MiB): HostileCase {
    return hostileCase(
      (at) => isDownload(at) && at.req.headers.range !== undefined,
      async ({ req, res }, record) => {
        res.writeHead(206, {
          "Content-Type": "application/octet-stream",
          "Content-Range": `${(req.headers.range ?? "").replace("=", " ")}/${bytes}`,
        });
        const chunk = Buffer.alloc(MiB, 7);
        while (record.bytesSent < bytes && !res.destroyed) {
          record.bytesSent += MiB;
          if (!res.write(chunk)) await new Promise((r) => res.once("drain", r).once("close", r));
        }
        res.end();
      },
    );
  },

  /** The revision's info is never answered: the connection is held open until the client leaves. */
  silent(): HostileCase {
    return hostileCase(
      (at) => isRevision(at.url),
      () => undefined,
    );
  },

  /**
   * A download of `data` sent a byte every `everyMs` (a trickle, never silent for long), from
   * where its Range starts. The connection stays open until the client cuts it.
   */
  trickle(data: Buffer, everyMs = 500): HostileCase {
    const bytes = data.length;
    return hostileCase(isDownload, ({ req, res }) => {
      let from = Number(/^bytes=(\d+)-/.exec(req.headers.range ?? "")?.[1] ?? 0);
      res.writeHead(from > 0 ? 206 : 200, {
        "Content-Type": "application/octet-stream",
        "Content-Length": String(bytes - from),
        ...(from > 0 ? { "Content-Range": `bytes ${from}-${bytes - 1}/${bytes}` } : {}),
      });
      const timer = setInterval(() => {
        if (from < bytes) res.write(data.subarray(from, ++from));
      }, everyMs);
      res.once("close", () => clearInterval(timer));
    });
  },
};
