import {
  apiErrorSchema,
  mirrorEntrySchema,
  mirrorInfoSchema,
  pullAnswerSchema,
  pullRequestSchema,
  pullSchema,
  servePlanSchema,
} from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** `ctxPool`: the context the plan should hold for every slot together. */
export const planQuerySchema = z.strictObject({
  ctxPool: z.coerce.number().int().positive().max(10_000_000).optional(),
});

/** One file of a version's listing: what an agent fetches to serve a multi-file version. */
export const mirrorListingEntrySchema = z.object({ file: z.string(), size: z.number().int() });
export type MirrorListingEntry = z.infer<typeof mirrorListingEntrySchema>;

/** The mirror of downloaded weights, as the catalogue sees it (SPEC §3 "Mirror"). */
export const mirror = {
  list: route({
    method: "GET",
    path: "/api/v1/mirror",
    need: "viewer",
    summary: "every version in the mirror, with its serve plan",
    ok: { status: 200, description: "the mirror", schema: z.array(mirrorEntrySchema) },
    refusals: [],
  }),
  // A route of its own rather than a field on the list: the list is an array clients already read.
  info: route({
    method: "GET",
    path: "/api/v1/mirror/info",
    need: "viewer",
    summary: "where the mirror is, its layout, and weights files outside it that it cannot list",
    ok: { status: 200, description: "the mirror's directory and misplaced files", schema: mirrorInfoSchema },
    refusals: [],
  }),
  plan: route({
    method: "GET",
    path: "/api/v1/mirror/:model/:version/plan",
    need: "viewer",
    summary: "how a version would be served: memory, context, slots",
    query: planQuerySchema,
    ok: { status: 200, description: "the serve plan", schema: servePlanSchema },
    refusals: [400, 404],
  }),
} as const;

/** A 404 `no_matching_files` names the quantisations the repo has, for a form to offer. */
export const noMatchingFilesSchema = apiErrorSchema.extend({ quants: z.array(z.string()).optional() });

/** Pulls from the Hugging Face Hub into the mirror (SPEC §10). */
export const pulls = {
  create: route({
    method: "POST",
    path: "/api/v1/mirror/pulls",
    need: "operator",
    summary:
      "pull a repo's files from the Hugging Face Hub into the mirror (202 with the pull), or with dryRun list its quantisations, their memory and where they fit (200)",
    body: pullRequestSchema,
    ok: {
      status: 202,
      description: "the pull, queued or already under way; a dry run answers 200 with the choices",
      schema: pullAnswerSchema,
    },
    refusals: [400, 404, 409, 502, 504, 507],
    refusalBodies: { 404: noMatchingFilesSchema },
  }),
  list: route({
    method: "GET",
    path: "/api/v1/mirror/pulls",
    need: "viewer",
    summary: "pulls from the Hub, newest first",
    ok: { status: 200, description: "the pulls", schema: z.array(pullSchema) },
    refusals: [],
  }),
  get: route({
    method: "GET",
    path: "/api/v1/mirror/pulls/:id",
    need: "viewer",
    summary: "one pull and its progress",
    ok: { status: 200, description: "the pull", schema: pullSchema },
    refusals: [404],
  }),
  cancel: route({
    method: "DELETE",
    path: "/api/v1/mirror/pulls/:id",
    need: "operator",
    summary: "cancel a pull: it stops, and its partial files are removed",
    ok: { status: 200, description: "the cancelled pull", schema: pullSchema },
    refusals: [404, 409],
  }),
} as const;

const listing = {
  need: "weights",
  summary: "a version's complete files, an agent downloads (files still downloading are left out)",
  ok: { status: 200, description: "the files", schema: z.array(mirrorListingEntrySchema) },
  refusals: [404],
  root: true,
} as const;

/** The weights themselves, outside /api: what agents download (SPEC §8), Range included. */
export const weights = {
  listing: route({ method: "GET", path: "/mirror/:model/:version", ...listing }),
  listingSlash: route({ method: "GET", path: "/mirror/:model/:version/", ...listing }),
  file: route({
    method: "GET",
    path: "/mirror/:model/:version/:file",
    need: "weights",
    summary: "one file's bytes; Range and If-Range let an agent resume or fetch in parts",
    headers: [
      { name: "Range", required: false, description: "bytes=start-end" },
      { name: "If-Range", required: false, description: "the ETag or date the resumed copy has" },
    ],
    ok: { status: 200, description: "the file (206 for a range)", media: "application/octet-stream" },
    refusals: [404, 416],
    root: true,
  }),
  none: route({
    method: "ALL",
    path: "/mirror/:model/*",
    need: "weights",
    summary: "no mirror file here",
    ok: { status: 200, description: "never: a 404" },
    refusals: [404],
    root: true,
    fallback: true,
  }),
} as const;
