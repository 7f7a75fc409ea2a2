// A JSON object's top-level members, found by walking its bytes once: the request path reads a
// large body's `model` and `user` this way instead of building the whole value (a chat of a few
// megabytes is mostly message text the gateway never looks at). The walk checks the whole text is
// JSON as `JSON.parse` would (structure, strings, numbers, literals; UTF-8 is checked before), so
// a body it accepts is one JSON.parse accepts, and a member's value is decoded from its own bytes.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 10_000;

/** Where a wanted member's value lies: `bytes.subarray(start, end)` is its JSON text. */
export type Member = { start: number; end: number };

/**
 * The wanted members of the JSON object `bytes` holds (the last one when a key repeats, as
 * JSON.parse keeps), or null when `bytes` is not one JSON object (not JSON at all, or an array, a
 * string, a number). `bytes` must be valid UTF-8.
 */
export function topLevelMembers(bytes: Uint8Array, wanted: readonly string[]): Map<string, Member> | null {
  const scan = new Scan(bytes);
  scan.space();
  if (bytes[scan.at] !== 0x7b /* { */) return null;
  const found = new Map<string, Member>();
  scan.at++;
  scan.space();
  if (bytes[scan.at] === 0x7d /* } */) {
    scan.at++;
  } else {
    for (;;) {
      if (bytes[scan.at] !== QUOTE) return null;
      const keyStart = scan.at;
      if (!scan.string()) return null;
      const key = keyOf(bytes, keyStart, scan.at, wanted);
      scan.space();
      if (bytes[scan.at] !== 0x3a /* : */) return null;
      scan.at++;
      scan.space();
      const start = scan.at;
      if (!scan.value()) return null;
      if (key !== null) found.set(key, { start, end: scan.at });
      scan.space();
      const next = bytes[scan.at];
      scan.at++;
      if (next === 0x7d) break;
      if (next !== 0x2c /* , */) return null;
      scan.space();
    }
  }
  scan.space();
  return scan.at === bytes.length ? found : null;
}

/** Just past the JSON value that starts at `at` (after any space), or -1 when none is whole and valid there. */
export function valueEnd(bytes: Uint8Array, at: number): number {
  const scan = new Scan(bytes);
  scan.at = at;
  return scan.value() ? scan.at : -1;
}

/** The key a string token spells, when it is one of `wanted` (escapes decoded), else null. */
function keyOf(bytes: Uint8Array, start: number, end: number, wanted: readonly string[]): string | null {
  const length = end - start - 2;
  for (const key of wanted) {
    if (length === key.length && sameAscii(bytes, start + 1, key)) return key;
  }
  // A key written with escapes (`"mod\u0065l"`) is the key JSON.parse reads.
  for (let i = start + 1; i < end - 1; i++) {
    if (bytes[i] === BACKSLASH) {
      const decoded = JSON.parse(
        Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8"),
      );
      return wanted.includes(decoded) ? (decoded as string) : null;
    }
  }
  return null;
}

function sameAscii(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** A cursor over JSON text; each method moves past one token and says whether it was valid. */
class Scan {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  space(): void {
    const b = this.bytes;
    let c = b[this.at];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.at];
  }

  /** Any value, nested ones walked with an explicit stack (no recursion on deep input). */
  value(): boolean {
    const b = this.bytes;
    // Per open container: true for an object (its members are keyed), false for an array.
    const open: boolean[] = [];
    for (;;) {
      this.space();
      const c = b[this.at];
      if (c === 0x7b || c === 0x5b) {
        if (open.length >= MAX_DEPTH) return false;
        this.at++;
        this.space();
        const close = c === 0x7b ? 0x7d : 0x5d;
        if (b[this.at] === close) {
          this.at++;
        } else {
          open.push(c === 0x7b);
          if (c === 0x7b && !this.memberKey()) return false;
          continue;
        }
      } else if (c === QUOTE) {
        if (!this.string()) return false;
      } else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
        if (!this.number()) return false;
      } else if (!this.literal()) {
        return false;
      }
      // A value ended: close what it ends, or move to the next element or member.
      for (;;) {
        if (open.length === 0) return true;
        this.space();
        const next = b[this.at];
        const inObject = open[open.length - 1];
        if (next === 0x2c) {
          this.at++;
          if (inObject && !this.memberKey()) return false;
          break;
        }
        if (next !== (inObject ? 0x7d : 0x5d)) return false;
        this.at++;
        open.pop();
      }
    }
  }

  /** `"key" :` inside a nested object. */
  private memberKey(): boolean {
    this.space();
    if (this.bytes[this.at] !== QUOTE || !this.string()) return false;
    this.space();
    if (this.bytes[this.at] !== 0x3a) return false;
    this.at++;
    return true;
  }

  /** A string token, at its opening quote: escapes valid, no raw control characters. */
  string(): boolean {
    const b = this.bytes;
    let i = this.at + 1;
    for (;;) {
      let c = b[i];
      // The common run, in one test a byte for most text (lower case letters and UTF-8's
      // multi-byte sequences are all above the backslash): anything but a quote, a backslash or a
      // control character.
      while (c !== undefined && (c > BACKSLASH || (c >= 0x20 && c !== QUOTE && c !== BACKSLASH))) c = b[++i];
      if (c === undefined || c < 0x20) return false;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const e = b[i + 1];
        if (e === 0x75 /* u */) {
          for (let k = 2; k < 6; k++) if (!isHex(b[i + k])) return false;
          i += 6;
          continue;
        }
        if (e === undefined || !SIMPLE_ESCAPES.has(e)) return false;
        i += 2;
        continue;
      }
      i++;
    }
    this.at = i + 1;
    return true;
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` */
  private number(): boolean {
    const b = this.bytes;
    let i = this.at;
    if (b[i] === 0x2d) i++;
    if (b[i] === 0x30) i++;
    else if (isDigit(b[i])) while (isDigit(b[i])) i++;
    else return false;
    if (b[i] === 0x2e) {
      i++;
      if (!isDigit(b[i])) return false;
      while (isDigit(b[i])) i++;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i++;
      if (b[i] === 0x2b || b[i] === 0x2d) i++;
      if (!isDigit(b[i])) return false;
      while (isDigit(b[i])) i++;
    }
    this.at = i;
    return true;
  }

  private literal(): boolean {
    for (const word of LITERALS) {
      if (sameAscii(this.bytes, this.at, word)) {
        this.at += word.length;
        return true;
      }
    }
    return false;
  }
}

const LITERALS = ["true", "false", "null"];
/** `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) =>
  c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
