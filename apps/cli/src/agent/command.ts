import type { DesiredReplica } from "./supervisor";

/**
 * How each engine is started when nothing else is configured (`--engine-command`). A Map, as every
 * table keyed by a name from the server: an engine called `constructor` or `__proto__` is unknown,
 * not one of Object's built-ins.
 */
export const DEFAULT_ENGINE_COMMANDS: ReadonlyMap<string, string> = new Map([
  ["llamacpp", "llama-server --model {source} --port {port} {args}"],
  ["vllm", "vllm serve {source} --port {port} {args}"],
]);

/**
 * Splits a command template into words, as a shell would for quotes, and nothing more: the engine
 * is started without a shell, so a source URL or a profile's args from the server can never be
 * read as shell syntax.
 */
export function splitWords(template: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (const ch of template) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in engine command: ${template}`);
  if (inWord) words.push(word);
  return words;
}

/**
 * The argv for one replica. `{args}` standing alone becomes the profile's args, one word each
 * (none when empty); the other placeholders ({source} {port} {model} {id}) are replaced wherever
 * they appear, so `--port={port}` works too.
 */
export function engineArgv(template: string, replica: DesiredReplica, port: number): string[] {
  const values: Record<string, string> = {
    source: replica.source,
    port: String(port),
    model: replica.model,
    id: replica.id,
    args: replica.args.join(" "),
  };
  const argv = splitWords(template).flatMap((word) =>
    word === "{args}"
      ? replica.args
      : [word.replace(/\{(source|port|model|id|args)\}/g, (_, key: string) => values[key] ?? "")],
  );
  if (argv.length === 0) throw new Error(`empty engine command for ${replica.engine}`);
  return argv;
}

/** The flags a command template sets itself (`--port {port}`, `--model={source}`): args may not. */
export function flagsOf(template: string): Set<string> {
  return new Set(
    splitWords(template)
      .filter((word) => /^--?[A-Za-z]/.test(word))
      .map((word) => word.split("=")[0] ?? word),
  );
}

/** Parses `--engine-command engine='template'` values over the defaults. */
export function engineCommands(flags: readonly string[]): Map<string, string> {
  const commands = new Map(DEFAULT_ENGINE_COMMANDS);
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const engine = flag.slice(0, eq).trim();
    const template = flag.slice(eq + 1).trim();
    if (eq <= 0 || !template) throw new Error(`--engine-command wants engine='command', got "${flag}"`);
    splitWords(template);
    commands.set(engine, template);
  }
  return commands;
}
