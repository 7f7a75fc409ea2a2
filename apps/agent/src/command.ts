import type { DesiredReplica } from "./supervisor";

/**
 * How each engine is started when nothing else is configured (`--engine-command`). A Map, as every
 * table keyed by a name from the server: an engine called `constructor` or `__proto__` is unknown,
 * not one of Object's built-ins.
 */
export const DEFAULT_ENGINE_COMMANDS: ReadonlyMap<string, string> = new Map([
  [
    "llamacpp",
    "llama-server --model {path} --host {host} --port {port} --threads {threads} --metrics {args}",
  ],
  ["vllm", "vllm serve {path} --host {host} --port {port} --served-model-name {model} {args}"],
]);

/** What the agent decides for one start of an engine (SPEC §8.6); the rest comes from the replica. */
export type EnginePlace = {
  /** The local file (one-file version), the local version directory, or the source unchanged. */
  path: string;
  /** Where the engine listens and is reached: `--advertise-host`. */
  host: string;
  port: number;
};

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
 * (none when empty); the other placeholders ({path} {host} {port} {threads} {model} {id}, and
 * {source}, the name {path} had before the agent fetched weights) are replaced wherever they
 * appear, so `--port={port}` works too. Only the agent fills them: an arg from the server that
 * reads `{path}` stays that text.
 */
export function engineArgv(template: string, replica: DesiredReplica, place: EnginePlace): string[] {
  const values = new Map([
    ["path", place.path],
    ["source", place.path],
    ["host", place.host],
    ["port", String(place.port)],
    // llama-server reads --threads 0 as "none"; a profile asking no cores still needs one.
    ["threads", String(Math.max(1, replica.cpuCores))],
    ["model", replica.model],
    ["id", replica.id],
    ["args", replica.args.join(" ")],
  ]);
  const argv = splitWords(template).flatMap((word) =>
    word === "{args}"
      ? replica.args
      : [word.replace(/\{([a-z]+)\}/g, (whole, key: string) => values.get(key) ?? whole)],
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
    if (splitWords(template).length === 0) throw new Error(`--engine-command ${engine}: empty command`);
    commands.set(engine, template);
  }
  return commands;
}

/** The program a command template runs: its first word, as `--engine-command` gave it. */
export function programOf(template: string): string | null {
  return splitWords(template)[0] ?? null;
}
