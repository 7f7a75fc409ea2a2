import { z } from "zod";

// SPEC §4: no string field accepts control characters (NUL included) or lone surrogates, and each
// is a 400 naming the field. PostgreSQL refuses NUL in text and an unpaired surrogate in JSON (a
// 500 once it reached the store), and a control character in a name drives the terminal of
// whoever lists it. One rule, used by every schema a client's text passes through.

export const CONTROL_MESSAGE = "must not contain control characters";
export const SURROGATE_MESSAGE = "must not contain a lone surrogate";

/** C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F): what a terminal may act on. */
export function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** Whether `s` holds a control character other than those in `allowed`. */
export function hasControl(s: string, allowed = ""): boolean {
  for (let i = 0; i < s.length; i++) {
    if (isControl(s.charCodeAt(i)) && !allowed.includes(s.charAt(i))) return true;
  }
  return false;
}

/** Whether `s` holds half of a surrogate pair without the other: not text in any encoding. */
export function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = s.charCodeAt(i + 1);
    if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return true;
    i++;
  }
  return false;
}

/**
 * A string a client sends, refused when it holds a control character or a lone surrogate.
 * `multiline` is for prose (a description): line breaks and tabs are kept, as a YAML block
 * scalar or a text area writes them; every other control character is still refused.
 */
export function text(options: { multiline?: boolean } = {}) {
  const allowed = options.multiline ? "\n\t" : "";
  return z
    .string()
    .refine((s) => !hasControl(s, allowed), CONTROL_MESSAGE)
    .refine((s) => !hasLoneSurrogate(s), SURROGATE_MESSAGE);
}

/**
 * A map of free keys (labels, a node selector) with at most `max` entries. The count is checked
 * before any entry, so 50,000 keys cost one refusal and not 50,000; a key's problem is named as
 * the key's, beside any of its value's.
 */
export function textMap(
  { max, what }: { max: number; what: string },
  key: z.ZodType<string, string>,
  value: z.ZodType<string, string>,
): z.ZodType<Record<string, string>, Record<string, string>> {
  const entries = z.record(key, value, {
    error: (issue) =>
      issue.code === "invalid_key" ? `the key ${issue.issues[0]?.message ?? "is not valid"}` : undefined,
  });
  const counted = z
    .unknown()
    .refine((v) => !isPlainObject(v) || Object.keys(v).length <= max, {
      message: `at most ${max} ${what}`,
      abort: true,
    })
    .pipe(entries);
  // The pipe's input is `unknown` only because the count runs first: what it takes is the record's.
  return counted as unknown as z.ZodType<Record<string, string>, Record<string, string>>;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
