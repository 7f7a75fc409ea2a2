import { valueEnd } from "./jsonScan";

/** Token counts an engine reports in `usage` (SPEC §7.7). */
export type Usage = {
  promptTokens: number | null;
  completionTokens: number | null;
  /**
   * Prompt tokens the engine found in its cache (SPEC §7.1a): `usage.prompt_tokens_details.
   * cached_tokens`, else llama-server's `timings.cache_n`; absent when it said neither.
   */
  cachedTokens?: number;
};

export const NO_USAGE: Usage = { promptTokens: null, completionTokens: null };

/** An event stream's line longer than this is not looked into (SPEC §7.5a): it is passed on only. */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Of a JSON answer, this much of its end (and of its start) is kept to find `usage` in. */
export const KEPT_BYTES = 64 * 1024;
/** A `usage` object is a handful of numbers: one longer than this is not one. */
const MAX_USAGE_BYTES = 4096;

const USAGE_KEY = Buffer.from('"usage"');
/** A chat stream's `delta.content` and a completions stream's `text`: one each a content chunk. */
const CONTENT_KEYS = [Buffer.from('"content"'), Buffer.from('"text"')];
const NEWLINE = 0x0a;

/**
 * Counts the engine's `usage` from an answer's bytes as they pass, holding at most a bounded part
 * of them and never the whole answer: in an event stream the last `data:` line carrying `usage`
 * wins (a line over MAX_LINE_BYTES is skipped, however it ends); in a JSON answer, `usage` is read
 * from its last KEPT_BYTES (engines write it at the end), else its first. Only the `usage` object
 * itself is parsed. A stream whose engine reports no `usage` even when asked has its content chunks
 * counted as completion tokens (SPEC §12.1): each non-empty `content` or `text` string in a
 * `data:` line is one. What `usage` answers at the end is the request's final token count.
 */
export class UsageCounter {
  readonly #stream: boolean;
  #found: Usage | null = null;
  /** Event stream: the unfinished line so far; JSON: the kept start and the tail. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Event stream: the unfinished line is over the bound and is being skipped to its end. */
  #skipping = false;
  #head: Buffer | null = null;
  #size = 0;
  /** Event stream: the non-empty content strings seen, for an engine that reports no usage. */
  #contentChunks = 0;

  constructor(streaming: boolean) {
    this.#stream = streaming;
  }

  push(chunk: Buffer): void {
    this.#size += chunk.byteLength;
    if (this.#stream) this.#line(chunk);
    else this.#keep(chunk);
  }

  get usage(): Usage {
    if (!this.#stream && this.#found === null) this.#found = this.#fromJson();
    if (this.#found === null && this.#stream && this.#contentChunks > 0)
      return { promptTokens: null, completionTokens: this.#contentChunks };
    return this.#found ?? NO_USAGE;
  }

  #line(chunk: Buffer): void {
    let from = 0;
    if (this.#pendingBytes > 0 || this.#skipping) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) {
        this.#hold(chunk);
        return;
      }
      if (!this.#skipping && this.#pendingBytes + end <= MAX_LINE_BYTES) {
        this.#pending.push(chunk.subarray(0, end));
        const line = Buffer.concat(this.#pending);
        this.#scan(line, 0, line.byteLength);
      }
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = false;
      from = end + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= from) this.#scan(chunk, from, last);
    if (last + 1 < chunk.byteLength) this.#hold(chunk.subarray(Math.max(from, last + 1)));
  }

  /** The start of an unfinished line, while it stays within the bound. */
  #hold(part: Buffer): void {
    if (this.#skipping) return;
    if (this.#pendingBytes + part.byteLength > MAX_LINE_BYTES) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#pending.push(part);
    this.#pendingBytes += part.byteLength;
  }

  /** Whole lines in `buf[from, end)`: each `data:` line of at most the bound with `usage` in it. */
  #scan(buf: Buffer, from: number, end: number): void {
    if (this.#found === null) this.#countContent(buf, from, end);
    let at = buf.indexOf(USAGE_KEY, from);
    while (at !== -1 && at < end) {
      const start = buf.lastIndexOf(NEWLINE, at) + 1;
      const lineStart = Math.max(start, from);
      let lineEnd = buf.indexOf(NEWLINE, at);
      if (lineEnd === -1 || lineEnd > end) lineEnd = end;
      if (lineEnd - lineStart <= MAX_LINE_BYTES && isDataLine(buf, lineStart))
        this.#found = usageAt(buf, at, lineEnd) ?? this.#found;
      at = buf.indexOf(USAGE_KEY, lineEnd);
    }
  }

  /**
   * Non-empty `"content"`/`"text"` strings in whole lines `buf[from, end)`. In valid JSON those
   * bytes followed by a colon are a member's key (a quote inside a string is escaped). Counted
   * only until an engine's `usage` turns up: then its numbers are the count.
   */
  #countContent(buf: Buffer, from: number, end: number): void {
    for (const key of CONTENT_KEYS) {
      let at = buf.indexOf(key, from);
      while (at !== -1 && at < end) {
        let i = at + key.byteLength;
        while (i < end && isSpace(buf[i])) i++;
        if (buf[i] === 0x3a) {
          i++;
          while (i < end && isSpace(buf[i])) i++;
          if (buf[i] === 0x22 && buf[i + 1] !== 0x22) this.#contentChunks++;
        }
        at = buf.indexOf(key, i);
      }
    }
  }

  /** JSON: the first KEPT_BYTES once, and the last KEPT_BYTES as chunks (dropped from the front). */
  #keep(chunk: Buffer): void {
    if (this.#head === null) this.#head = chunk.subarray(0, KEPT_BYTES);
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.byteLength;
    while (
      this.#pending.length > 1 &&
      this.#pendingBytes - (this.#pending[0]?.byteLength ?? 0) >= KEPT_BYTES
    ) {
      this.#pendingBytes -= this.#pending.shift()?.byteLength ?? 0;
    }
  }

  #fromJson(): Usage | null {
    const kept = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
    const tail = kept.subarray(Math.max(0, kept.byteLength - KEPT_BYTES));
    const fromTail = lastUsage(tail);
    if (fromTail !== null || this.#head === null || this.#size <= tail.byteLength) return fromTail;
    return lastUsage(this.#head);
  }
}

function isDataLine(buf: Buffer, at: number): boolean {
  return (
    buf[at] === 0x64 &&
    buf[at + 1] === 0x61 &&
    buf[at + 2] === 0x74 &&
    buf[at + 3] === 0x61 &&
    buf[at + 4] === 0x3a
  );
}

function lastUsage(buf: Buffer): Usage | null {
  let at = buf.lastIndexOf(USAGE_KEY);
  while (at !== -1) {
    const found = usageAt(buf, at, buf.byteLength);
    if (found !== null) return found;
    at = at === 0 ? -1 : buf.lastIndexOf(USAGE_KEY, at - 1);
  }
  return null;
}

/**
 * The `usage` object whose key starts at `at` (before `end`): `"usage"`, a colon, and an object of
 * at most MAX_USAGE_BYTES. In valid JSON the bytes `"usage"` are always a string of their own (a
 * quote inside a string is escaped), so followed by a colon they are a member's key.
 */
function usageAt(buf: Buffer, at: number, end: number): Usage | null {
  let i = at + USAGE_KEY.byteLength;
  while (i < end && isSpace(buf[i])) i++;
  if (buf[i] !== 0x3a) return null;
  i++;
  while (i < end && isSpace(buf[i])) i++;
  if (buf[i] !== 0x7b) return null;
  const close = valueEnd(buf.subarray(0, Math.min(end, i + MAX_USAGE_BYTES)), i);
  if (close === -1) return null;
  let value: unknown;
  try {
    value = JSON.parse(buf.toString("utf8", i, close));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { prompt_tokens, completion_tokens, prompt_tokens_details } = value as Record<string, unknown>;
  const cached =
    typeof prompt_tokens_details === "object" && prompt_tokens_details !== null
      ? (prompt_tokens_details as Record<string, unknown>).cached_tokens
      : undefined;
  const cachedTokens = typeof cached === "number" ? cached : cacheNear(buf, at, end);
  return {
    promptTokens: typeof prompt_tokens === "number" ? prompt_tokens : null,
    completionTokens: typeof completion_tokens === "number" ? completion_tokens : null,
    ...(cachedTokens === null ? {} : { cachedTokens }),
  };
}

const TIMINGS_KEY = Buffer.from('"timings"');
const CACHE_N = /"cache_n"\s*:\s*(\d+)/;

/**
 * llama-server's own count of cached prompt tokens (`timings.cache_n`), written beside `usage` in
 * the same object: looked for within the same bounded stretch the usage was found in.
 */
function cacheNear(buf: Buffer, at: number, end: number): number | null {
  const from = Math.max(0, at - MAX_USAGE_BYTES);
  const to = Math.min(end, at + MAX_USAGE_BYTES);
  const timings = buf.indexOf(TIMINGS_KEY, from);
  if (timings === -1 || timings >= to) return null;
  const found = CACHE_N.exec(buf.toString("utf8", timings, Math.min(to, timings + 1024)));
  return found ? Number(found[1]) : null;
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
