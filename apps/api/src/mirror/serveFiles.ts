import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import type { ErrorCode } from "@llmgw/domain";
import { type Context, Hono } from "hono";
import { byteRange } from "./byteRange";
import type { Mirror } from "./scanner";

/** One entry of a version's file listing: what an agent fetches to serve a multi-file version. */
export interface MirrorListingEntry {
  file: string;
  size: number;
}

/**
 * `GET /mirror/:model/:version/:file` (outside /api): the weights, with Range support so agents can
 * resume and fetch in parallel; and `GET /mirror/:model/:version/`, the version's complete files.
 * Mount with `app.route("/", mirrorFiles(mirror))`.
 */
export function mirrorFiles(mirror: Pick<Mirror, "get" | "filePath">) {
  const listing = async (c: Context) => {
    const { model = "", version = "" } = c.req.param();
    const found = await mirror.get(model, version);
    if (!found) return problem(c, 404, "not_found", `the mirror has no version ${model}/${version}`);
    // Only complete files: an agent handed a file still downloading would serve a broken model.
    const files: MirrorListingEntry[] = found.files
      .filter((file) => file.state === "complete")
      .map((file) => ({ file: file.file, size: file.bytesDone }));
    return c.json(files);
  };

  return new Hono()
    .get("/mirror/:model/:version/", listing)
    .get("/mirror/:model/:version", listing)
    .get("/mirror/:model/:version/:file", async (c) => {
      const { model, version, file } = c.req.param();
      const path = await mirror.filePath(model, version, file);
      const stats = path ? await stat(path).catch(() => null) : null;
      if (!path || !stats?.isFile()) {
        return problem(c, 404, "not_found", `the mirror has no file ${file} in ${model}/${version}`);
      }
      const size = stats.size;
      const etag = `"${size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
      const lastModified = stats.mtime.toUTCString();
      const headers = new Headers({
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
        ETag: etag,
        "Last-Modified": lastModified,
      });
      // If-Range: a client resuming against a file that has since been replaced must get it whole.
      const ifRange = c.req.header("If-Range");
      const rangeHeader =
        ifRange && ifRange !== etag && ifRange !== lastModified ? undefined : c.req.header("Range");
      const range = byteRange(rangeHeader, size);
      if (range.kind === "unsatisfiable") {
        headers.set("Content-Range", `bytes */${size}`);
        headers.set("Content-Type", "application/json");
        const body: ErrorBody = {
          error: {
            code: "bad_request",
            message: `${rangeHeader} is outside ${file}, which has ${size} bytes`,
          },
        };
        return new Response(JSON.stringify(body), { status: 416, headers });
      }
      const [start, end] = range.kind === "part" ? [range.start, range.end] : [0, size - 1];
      headers.set("Content-Length", String(end - start + 1));
      if (range.kind === "part") headers.set("Content-Range", `bytes ${start}-${end}/${size}`);
      const status = range.kind === "part" ? 206 : 200;
      // HEAD answers without opening the file: Hono would drop the body, but not close the stream.
      if (c.req.method === "HEAD" || size === 0) return new Response(null, { status, headers });
      return new Response(fileStream(path, start, end), { status, headers });
    })
    .all("/mirror/:model/*", (c) => problem(c, 404, "not_found", `no mirror file at ${c.req.path}`));
}

/** Streams bytes start..end (inclusive) from disk; cancelling the response closes the file. */
function fileStream(path: string, start: number, end: number): ReadableStream<Uint8Array> {
  // toWeb is typed ReadableStream<any>; a file stream without an encoding yields bytes.
  return Readable.toWeb(createReadStream(path, { start, end })) as ReadableStream<Uint8Array>;
}

interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

function problem(c: Context, status: 404, code: ErrorCode, message: string) {
  const body: ErrorBody = { error: { code, message } };
  return c.json(body, status);
}
