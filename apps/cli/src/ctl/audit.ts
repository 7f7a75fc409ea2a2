import { type AuditEntry, scaledAfterText, scaledBeforeText } from "@llmgw/domain";
import { wholeNumber } from "./args";
import { type Command, type Ctx, show } from "./command";
import { orDash, table, timeText, valueText } from "./table";

const WIDEST = 60;

/**
 * A before/after cell: a field's value as it is; a whole entity (a created model, a quota) by its
 * name, or by its scalar members, cut short. `--json` has the full record.
 */
function auditValue(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return valueText(value);
  const record = value as Record<string, unknown>;
  if (typeof record.name === "string") return record.name;
  const text = Object.entries(record)
    .filter(([, v]) => v === null || typeof v !== "object")
    .map(([k, v]) => `${k}=${v ?? "none"}`)
    .join(" ");
  return text.length > WIDEST ? `${text.slice(0, WIDEST - 1)}…` : text;
}

function auditTable(entries: AuditEntry[], ctx: Ctx): string {
  if (entries.length === 0) return "no audit entries\n";
  return table(
    [
      { header: "AT (UTC)" },
      { header: "BY" },
      { header: "ACTION" },
      { header: "TARGET" },
      { header: "FIELD" },
      { header: "BEFORE" },
      { header: "AFTER" },
    ],
    entries.map((e) => [
      timeText(e.at),
      e.by,
      e.action,
      e.target,
      orDash(e.field),
      (e.action === "scaled" ? scaledBeforeText(e.before) : null) ?? auditValue(e.before),
      // The autoscaler's reason in full (SPEC §9.5): it is the point of the entry.
      (e.action === "scaled" ? scaledAfterText(e.after) : null) ?? auditValue(e.after),
    ]),
    ctx.style,
  );
}

export const auditCommands: Command[] = [
  {
    words: ["audit"],
    operands: [],
    options: ["model", "limit"],
    flags: "[--model NAME] [--limit N]",
    summary: "who changed what, newest first",
    async run(ctx, _operands, values) {
      const limit = values.limit === undefined ? undefined : wholeNumber("--limit", values.limit);
      const entries = await ctx.answer(
        ctx.api.audit.$get({
          query: {
            ...(values.model === undefined ? {} : { model: values.model }),
            ...(limit === undefined ? {} : { limit: String(limit) }),
          },
        }),
      );
      show(ctx, entries, (rows) => auditTable(rows, ctx));
      return 0;
    },
  },
];
