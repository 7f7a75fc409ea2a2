import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { contract, type MirrorListingEntry } from "@llmgw/contract";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../env";
import { AppError, notFound, respondError } from "../errors";
import { handlers, register } from "../routes/handlers";
import { byteRange } from "./byteRange";
import type { Mirror } from "./scanner";

/**
 * `GET /mirror/:model/:version/:file` (outside /api): the weights, with Range support so agents can
 * resume and fetch in parallel; and `GET /mirror/:model/:version/`, the version's complete files.
 */
export function weightsRoutes(mirror: Pick<Mirror, "get" | "filePath">) {
  const listing = async (_c: Context, { param }: { param: { model: string; version: string } }) => {
    const found = await mirror.get(param.model, param.version);
    if (!found) throw notFound(`the mirror's version ${param.model}/${param.version}`);
    // Only complete files: an agent handed a file still downloading would serve a broken model.
    return found.files
      .filter((file) => file.state === "complete")
      .map((file): MirrorListingEntry => ({ file: file.file, size: file.bytesDone }));
  };

  return handlers(contract.weights, {
    listing,
    listingSlash: listing,
    file: async (c, { param }) => {
      const { model, version, file } = param;
      const path = await mirror.filePath(model, version, file);
      const stats = path ? await stat(path).catch(() => null) : null;
      if (!path || !stats?.isFile()) throw notFound(`the file ${file} in ${model}/${version}`);
      const size = stats.size;
      const etag = `"${size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
      const lastModified = stats.mtime.toUTCString();
      const headers: Record<string, string> = {
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
        ETag: etag,
        "Last-Modified": lastModified,
      };
      // If-Range: a client resuming against a file that has since been replaced must get it whole.
      const ifRange = c.req.header("If-Range");
      const rangeHeader =
        ifRange && ifRange !== etag && ifRange !== lastModified ? undefined : c.req.header("Range");
      const range = byteRange(rangeHeader, size);
      if (range.kind === "unsatisfiable") {
        const { "Content-Type": _, ...rest } = headers;
        throw new AppError({
          status: 416,
          code: "bad_request",
          message: `${rangeHeader} is outside ${file}, which has ${size} bytes`,
          headers: { ...rest, "Content-Range": `bytes */${size}` },
        });
      }
      const [start, end] = range.kind === "part" ? [range.start, range.end] : [0, size - 1];
      headers["Content-Length"] = String(end - start + 1);
      if (range.kind === "part") headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
      const status = range.kind === "part" ? 206 : 200;
      // HEAD answers without opening the file: Hono would drop the body, but not close the stream.
      if (c.req.method === "HEAD" || size === 0) return new Response(null, { status, headers });
      return new Response(fileStream(path, start, end), { status, headers });
    },
    none: (c) => {
      throw new AppError({ code: "not_found", message: `no mirror file at ${c.req.path}` });
    },
  });
}

/** The weights on their own, for tests of the files without a whole app. */
export function mirrorFiles(mirror: Pick<Mirror, "get" | "filePath">): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(respondError);
  register(app, weightsRoutes(mirror));
  return app;
}

/** Streams bytes start..end (inclusive) from disk; cancelling the response closes the file. */
function fileStream(path: string, start: number, end: number): ReadableStream<Uint8Array> {
  // toWeb is typed ReadableStream<any>; a file stream without an encoding yields bytes.
  return Readable.toWeb(createReadStream(path, { start, end })) as ReadableStream<Uint8Array>;
}
