import { type AuditEntry, benchLine } from "@llmgw/domain";
import { z } from "zod";

/** An audit value as an operator reads it: strings bare, nothing as "—", the rest as JSON. */
export function auditValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value === "" ? '""' : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** "class from standard to critical", or the action alone when the entry names no field. */
export function auditChange(entry: AuditEntry): string {
  if (entry.field === null) return entry.action;
  return `${entry.field} from ${auditValue(entry.before)} to ${auditValue(entry.after)}`;
}

/** What a bench entry keeps (the API's storeBench): each run's figures and the memory measured. */
const auditedBench = z.object({
  runs: z.array(
    z.object({
      concurrency: z.number(),
      tokensPerSecond: z.number(),
      ttftMsP50: z.number().nullable().optional(),
    }),
  ),
  measuredMemoryGB: z.number().nullable().optional(),
});

/**
 * A bench entry's figures in the card's words: "measured 41 tok/s at 4 concurrent · first token
 * 180 ms · 5.2 GB measured"; "bench result stored" when it keeps none this can read.
 */
export function benchEntryText(value: unknown): string {
  const parsed = auditedBench.safeParse(value);
  if (!parsed.success) return "bench result stored";
  const runs = parsed.data.runs.map((r) => ({
    concurrency: r.concurrency,
    tokensPerSecond: r.tokensPerSecond,
    ttftMs: { p50: r.ttftMsP50 ?? null },
  }));
  const line = benchLine({ runs, measuredMemoryGB: parsed.data.measuredMemoryGB ?? null }, null);
  return line === "" ? "bench result stored" : line;
}
