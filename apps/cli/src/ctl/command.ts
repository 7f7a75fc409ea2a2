import type { OptionName, Values } from "./args";
import type { CtlFetch, Server } from "./client";
import type { Style } from "./table";

/** Where a command writes: `process.stdout` in the CLI, a string buffer in tests. */
export type Output = { write(chunk: string): unknown; isTTY?: boolean };

/** What every command runs with. */
export type Ctx = {
  /** The typed client (`api.models[":name"].$get`)… */
  api: Server["api"];
  /** …and what a call resolves to: the contract's body, or the command ended with the refusal. */
  answer: Server["answer"];
  sent: Server["sent"];
  /** `--json`: stdout holds the API's JSON, pretty-printed, and nothing else. */
  json: boolean;
  style: Style;
  stdout: Output;
  /** Notes for the human that must not mix with stdout (a refusal's message). */
  stderr: Output;
  /** Where the server is and how to reach it, for what the typed client does not cover (`/v1`). */
  connection: { server: string; token: string | null; fetch?: CtlFetch | undefined };
};

/** One `llmgw ctl` command: its words, operands, the flags it takes and how it runs. */
export type Command = {
  words: readonly string[];
  /** Operand names as usage shows them; a name in brackets may be left out. */
  operands: readonly string[];
  options: readonly OptionName[];
  /** The flags' part of the usage line, e.g. `[--dry-run]`. */
  flags?: string;
  summary: string;
  run(ctx: Ctx, operands: readonly string[], values: Values): Promise<number>;
};

export function usageLine(command: Command): string {
  return ["llmgw ctl", ...command.words, ...command.operands, command.flags ?? ""].join(" ").trimEnd();
}

/** Prints the API's JSON under `--json`, the human rendering otherwise. */
export function show<T>(ctx: Ctx, value: T, human: (value: T) => string): void {
  ctx.stdout.write(ctx.json ? `${JSON.stringify(value, null, 2)}\n` : human(value));
}

/** The operand at `index`; the dispatcher has checked the count, so a gap is a programming slip. */
export function operand(operands: readonly string[], index: number): string {
  const value = operands[index];
  if (value === undefined) throw new Error(`operand ${index} is missing`);
  return value;
}
