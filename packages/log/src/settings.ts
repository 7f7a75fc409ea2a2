import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat, type Logger, type LogLevel } from "./logger";

/** The flags of the commands that log (serve, demo, agent), for their `parseArgs` options. */
export const logOptions = {
  "log-format": { type: "string" },
  "log-level": { type: "string" },
} as const;

export const LOG_USAGE = `  --log-format F        pretty (one readable line an event) or json (one object a line);
                        LLMGW_LOG_FORMAT; default pretty on a terminal, json otherwise
  --log-level L         ${LOG_LEVELS.join(", ")}; LLMGW_LOG_LEVEL; default info
`;

type LogFlags = { "log-format"?: string | undefined; "log-level"?: string | undefined };

/** The process's logger (see `logSettings`). */
export const loggerFrom = (flags: LogFlags): Logger => createLogger(logSettings(flags));

/** Flags win over the environment; unset, a terminal gets pretty lines and anything else JSON. */
export function logSettings(
  flags: LogFlags,
  env: NodeJS.ProcessEnv = process.env,
  terminal: boolean = process.stdout.isTTY === true,
): { format: LogFormat; level: LogLevel } {
  const format = setting(LOG_FORMATS, ["--log-format", flags["log-format"]], ["LLMGW_LOG_FORMAT", env]);
  const level = setting(LOG_LEVELS, ["--log-level", flags["log-level"]], ["LLMGW_LOG_LEVEL", env]);
  return { format: format ?? (terminal ? "pretty" : "json"), level: level ?? "info" };
}

/** The flag's value, else the variable's (an empty one is unset), checked against `allowed`. */
function setting<T extends LogFormat | LogLevel>(
  allowed: readonly T[],
  [flag, flagValue]: [string, string | undefined],
  [variable, env]: [string, NodeJS.ProcessEnv],
): T | undefined {
  const [name, value] = flagValue !== undefined ? [flag, flagValue] : [variable, env[variable] || undefined];
  if (value === undefined) return undefined;
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw new Error(`${name} wants one of ${allowed.join(", ")}, got "${value}"`);
  return found;
}
