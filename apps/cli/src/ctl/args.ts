import { parseArgs } from "node:util";
import { CtlError } from "./client";

/**
 * Every flag `llmgw ctl` knows, parsed in one pass so the global ones (`--server`, `--token`,
 * `--json`, `--help`) may stand anywhere on the line. Each command then says which of the rest
 * it takes; a flag given to a command that does not take it is a usage error, not ignored.
 */
export const OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "dry-run": { type: "boolean" },
  class: { type: "string" },
  owner: { type: "string" },
  memory: { type: "string" },
  cores: { type: "string" },
  gpus: { type: "string" },
  mode: { type: "string" },
  replicas: { type: "string" },
  max: { type: "string" },
  target: { type: "string" },
  model: { type: "string" },
  limit: { type: "string" },
  role: { type: "string" },
  name: { type: "string" },
  node: { type: "string" },
  models: { type: "string" },
  rpm: { type: "string" },
  concurrency: { type: "string" },
  "tokens-per-day": { type: "string" },
  requests: { type: "string" },
  "max-tokens": { type: "string" },
  "prompt-tokens": { type: "string" },
  "shared-prefix": { type: "string" },
  tenants: { type: "string" },
  revision: { type: "string" },
  file: { type: "string", multiple: true },
  version: { type: "string" },
  // usage2 (issue 39): `ctl usage`
  by: { type: "string" },
  since: { type: "string" },
  step: { type: "string" },
  csv: { type: "boolean" },
  // model rollout (SPEC §11.5)
  source: { type: "string" },
  args: { type: "string" },
  canary: { type: "string" },
  wait: { type: "boolean" },
  promote: { type: "boolean" },
  abort: { type: "boolean" },
} as const;

export type OptionName = keyof typeof OPTIONS;
export const GLOBAL_OPTIONS: readonly OptionName[] = ["server", "token", "json", "help"];

export type Values = ReturnType<typeof parse>["values"];

export type ParsedLine = { words: string[]; values: Values };

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

export function parseLine(args: string[]): ParsedLine {
  try {
    const { positionals, values } = parse(args);
    return { words: positionals, values };
  } catch (err) {
    throw usage(err instanceof Error ? err.message : String(err));
  }
}

export function usage(message: string): CtlError {
  return new CtlError({ exitCode: 2, message });
}

/** The flags given that are neither global nor among the command's own. */
export function unexpectedFlags(values: Values, allowed: readonly OptionName[]): string[] {
  return (Object.keys(values) as OptionName[])
    .filter((name) => values[name] !== undefined)
    .filter((name) => !GLOBAL_OPTIONS.includes(name) && !allowed.includes(name))
    .map((name) => `--${name}`);
}

/** A count or size as the operator types it: digits only, so `1.5` or `-2` is a usage error. */
export function wholeNumber(what: string, text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw usage(`${what}: expected a whole number, got "${text}"`);
  }
  return Number(text);
}

/** A quota limit: a whole number, or `none` for unlimited. */
export function limitOf(what: string, text: string): number | null {
  return text === "none" ? null : wholeNumber(what, text);
}
