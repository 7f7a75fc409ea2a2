import { USAGE_KEYS, USAGE_STEPS } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** `from`/`to`: ISO times (default the last 24 hours); `by` model, `step` hour unless said. */
export const usageQuerySchema = z.strictObject({
  by: z.enum(USAGE_KEYS).optional(),
  step: z.enum(USAGE_STEPS).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

const countsShape = {
  requests: z.number().int(),
  refused: z.number().int(),
  failed: z.number().int(),
  promptTokens: z.number().int(),
  cachedTokens: z.number().int(),
  completionTokens: z.number().int(),
};

/** SPEC §12.1: by model and by owner only (token rows carry no replica figures). */
const replicaShape = {
  replicaHours: z.number().optional(),
  memoryGBHours: z.number().optional(),
  coreHours: z.number().optional(),
  gpuHours: z.number().optional(),
};

export const usageReadingSchema = z.object({
  by: z.enum(USAGE_KEYS),
  step: z.enum(USAGE_STEPS),
  from: z.string(),
  to: z.string(),
  rows: z.array(z.object({ at: z.string(), key: z.string(), ...countsShape, ...replicaShape })),
  totals: z.object({ ...countsShape, ...replicaShape }),
});

/** Who used what (SPEC §12.2). `Accept: text/csv` answers the rows as CSV. */
export const usage = {
  read: route({
    method: "GET",
    path: "/api/v1/usage",
    need: "viewer",
    summary: "usage by model, client token or owner, by hour or day (JSON, or CSV)",
    query: usageQuerySchema,
    ok: { status: 200, description: "the rows and their totals", schema: usageReadingSchema },
    refusals: [400],
  }),
} as const;
