import type { Model } from "@llmgw/domain";
import { AppError } from "../errors";

// A model's version on the wire (SPEC §2.7): its ETag, and the If-Match a change must send. HTTP
// lives here, with the routes; the services take and give versions as numbers.

export const etagOf = (model: Pick<Model, "version">) => `"${model.version}"`;

/** `If-Match: "7"` (or W/"7", or 7) → 7; a 428 when absent, a 400 when it is not a version. */
export function versionAsked(header: string | undefined): number {
  if (header === undefined || header.trim() === "") {
    throw new AppError({
      code: "precondition_required",
      message: "send If-Match with the model's ETag (its version)",
    });
  }
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!match?.[1]) {
    throw new AppError({
      code: "bad_request",
      message: 'If-Match must be the model\'s ETag, like "3"',
      fields: {
        "If-Match": 'expected the model\'s ETag, like "3"',
      },
    });
  }
  return Number(match[1]);
}

/**
 * A 412 (a change judged against a stale version) carries the model as it is now; its answer also
 * carries that model's ETag, so the client can re-apply against it.
 */
export function taggedStale(err: unknown): never {
  const current = err instanceof AppError && err.code === "precondition_failed" ? err.extra?.current : null;
  if (err instanceof AppError && typeof current === "object" && current !== null && "version" in current) {
    throw new AppError({
      status: err.status,
      code: err.code,
      message: err.message,
      fields: err.fields,
      extra: err.extra,
      headers: { ...err.headers, ETag: etagOf(current as Pick<Model, "version">) },
    });
  }
  throw err;
}
