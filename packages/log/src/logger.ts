import { type DestinationStream, destination, type Logger, pino, stdTimeFunctions } from "pino";

export type { Logger };

export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LoggerOptions = {
  /** `json`: one JSON object a line, for a collector. `pretty`: one readable line, for a terminal. */
  format?: LogFormat;
  level?: LogLevel;
  /** Where the lines go; standard output by default. Tests give a stream that keeps them. */
  destination?: DestinationStream;
};

/**
 * The process's one logger: an event is one line with a message and its fields (`err` serialized
 * with its stack). Pretty lines are made in this process from the JSON ones, with no worker thread
 * (pino-pretty's transport would start one, and bring a dozen packages for a terminal's sake).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const { format = "json", level = "info" } = options;
  const out = options.destination ?? destination({ dest: 1, sync: true });
  return pino(
    {
      level,
      // Level names and ISO times: a line read without pino's conventions still says what it is.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: stdTimeFunctions.isoTime,
    },
    format === "pretty" ? prettyStream(out) : out,
  );
}

/** A logger that writes nothing: what code gets from Deps that no one gave a logger (tests). */
export function silentLogger(): Logger {
  return pino({ level: "silent" }, { write: () => undefined });
}

function prettyStream(out: DestinationStream): DestinationStream {
  return { write: (line) => out.write(prettyLine(line)) };
}

/** What a pretty line shows in its own place, or leaves to the JSON format. */
const OWN_PLACE = new Set(["time", "level", "msg", "err", "pid", "hostname"]);

/**
 * One JSON line as `12:34:56.789 ERROR message key=value … err=message`, the error's stack (if
 * any) on the indented lines after it: on a terminal, where it failed is worth the extra lines.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const parts = [
    clock(entry.time),
    String(entry.level ?? "")
      .toUpperCase()
      .padEnd(5),
    text(entry.msg),
  ];
  for (const [key, value] of Object.entries(entry)) {
    if (!OWN_PLACE.has(key)) parts.push(`${key}=${shown(value)}`);
  }
  const err = entry.err;
  let stack = "";
  if (typeof err === "object" && err !== null) {
    const { message, stack: trace } = err as { message?: unknown; stack?: unknown };
    parts.push(`err=${shown(message ?? err)}`);
    if (typeof trace === "string") {
      const frames = trace.split("\n").filter((line) => line.trimStart().startsWith("at "));
      stack = frames.map((frame) => `    ${frame.trim()}\n`).join("");
    }
  } else if (err !== undefined) {
    parts.push(`err=${shown(err)}`);
  }
  return `${parts.filter((part) => part !== "").join(" ")}\n${stack}`;
}

function clock(time: unknown): string {
  if (typeof time !== "string" && typeof time !== "number") return "";
  const at = new Date(time);
  if (Number.isNaN(at.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  const ms = String(at.getMilliseconds()).padStart(3, "0");
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${ms}`;
}

/** A message as it is, unless it holds control characters (a line must stay one line). */
function text(value: unknown): string {
  const message = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  return CONTROL.test(message) ? JSON.stringify(message) : message;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const BARE = /^[\w.:/@+-]+$/;

/** A field's value: bare when it reads unambiguously, JSON otherwise. */
function shown(value: unknown): string {
  if (typeof value === "string") return BARE.test(value) ? value : JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return JSON.stringify(value) ?? String(value);
}
