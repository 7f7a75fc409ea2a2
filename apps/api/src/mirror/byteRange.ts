/** What a `Range` header asks of a file of `size` bytes (RFC 9110 §14). */
export type ByteRange =
  | { kind: "whole" }
  | { kind: "part"; start: number; end: number }
  | { kind: "unsatisfiable" };

/**
 * One range of bytes (`a-b`, `a-`, `-n`). Anything else — several ranges, another unit, nonsense —
 * is answered with the whole file, which the RFC allows and every client handles; agents resuming
 * a download only ever ask for one range.
 */
export function byteRange(header: string | undefined, size: number): ByteRange {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match) return { kind: "whole" };
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return { kind: "whole" };
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "part", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? Number.POSITIVE_INFINITY : Number(to);
  // b < a is not a range at all (ignored); a range wholly past the end is one that cannot be served.
  if (end < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", start, end: Math.min(end, size - 1) };
}
