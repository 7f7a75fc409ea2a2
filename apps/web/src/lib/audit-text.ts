import type { AuditEntry } from "@llmgw/domain";

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
