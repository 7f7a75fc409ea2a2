import { auditEntrySchema, quotaLimitsSchema, quotaUsageSchema, text } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** Owners' quotas (SPEC §4 "Quotas"). */
export const quotas = {
  list: route({
    method: "GET",
    path: "/api/v1/quotas",
    need: "viewer",
    summary: "every owner's quota and what it uses",
    ok: { status: 200, description: "the quotas", schema: z.array(quotaUsageSchema) },
    refusals: [],
  }),
  put: route({
    method: "PUT",
    path: "/api/v1/quotas/:owner",
    need: "admin",
    summary: "set an owner's limits",
    body: quotaLimitsSchema,
    ok: { status: 200, description: "the quota and its use", schema: quotaUsageSchema },
    refusals: [400, 413, 415],
  }),
} as const;

/** `model` narrows to one model's entries; `limit` is how many of the newest (200 unless said). */
export const auditQuerySchema = z.strictObject({
  model: text().min(1).max(128).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** Who changed what, newest first (SPEC §3 "Audit"). */
export const audit = {
  list: route({
    method: "GET",
    path: "/api/v1/audit",
    need: "viewer",
    summary: "the newest audit entries",
    query: auditQuerySchema,
    ok: { status: 200, description: "the entries, newest first", schema: z.array(auditEntrySchema) },
    refusals: [400],
  }),
} as const;
