import { isControl } from "@llmgw/domain";

/**
 * Plain-text tables for a terminal: columns as wide as their widest cell, two spaces apart,
 * numbers right-aligned so their digits line up, no trailing spaces. Headers are bold only when
 * the output is a terminal (and NO_COLOR is unset), so a pipe or a file gets plain text. Every
 * cell is `printable`: what the server says is shown, never obeyed.
 */

export type Column = { header: string; align?: "left" | "right" };

export type Style = { bold: boolean };

export const PLAIN: Style = { bold: false };

const GAP = "  ";

export function table(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  style = PLAIN,
): string {
  const shown = rows.map((r) => r.map(printable));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...shown.map((r) => width(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? "";
        const pad = " ".repeat((widths[i] ?? 0) - width(cell));
        return c.align === "right" ? pad + cell : cell + pad;
      })
      .join(GAP)
      .trimEnd();
  const header = line(columns.map((c) => c.header));
  return `${[style.bold ? bold(header) : header, ...shown.map(line)].join("\n")}\n`;
}

/** A record as aligned `key  value` lines (the `model show` and `headroom NAME` layout). */
export function keyValues(pairs: readonly (readonly [string, string])[], style = PLAIN): string {
  const shown = pairs.map(([k, v]) => [printable(k), printable(v)] as const);
  const keyWidth = Math.max(0, ...shown.map(([k]) => width(k)));
  return shown
    .map(([k, v]) => {
      const key = k.padEnd(keyWidth);
      return `${style.bold ? bold(key) : key}${GAP}${v}`.trimEnd();
    })
    .join("\n")
    .concat("\n");
}

/**
 * Text from the server as a terminal shows it and never obeys it: a node name or label with an
 * escape sequence must not recolour, move the cursor, retitle the window or hide what follows.
 * Line breaks and tabs become spaces (a cell stays on its line); every other control character,
 * C0, DEL and C1 (ESC and CSI among them), is written out as `\x1b`; a lone surrogate as U+FFFD.
 */
export function printable(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x09 || code === 0x0a || code === 0x0d) out += " ";
    else if (isControl(code)) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code < 0xd800 || code > 0xdfff) out += text.charAt(i);
    else if (code <= 0xdbff && isLow(text.charCodeAt(i + 1))) {
      out += text.slice(i, i + 2);
      i++;
    } else out += "\ufffd";
  }
  return out;
}

const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

// Display width: counts code points, so "—" or "é" take one column as they do on screen.
function width(text: string): number {
  return [...text].length;
}

function bold(text: string): string {
  return `\u001b[1m${text}\u001b[22m`;
}

// Cells in the operator's words, shared by every command's table.

export const gb = (n: number) => `${n} GB`;

/** `+3`, or `?` when the need cannot be counted (SPEC §2.4 `unknown-need`). */
export const plus = (n: number | null) => (n === null ? "?" : `+${n}`);

/** A limit or remainder that may be unset: `-` reads as "no limit". */
export const orDash = (value: string | number | null | undefined) =>
  value === null || value === undefined || value === "" ? "-" : String(value);

/** An audit entry's before/after: strings as they are, the rest as compact JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value === "" ? '""' : value;
  return JSON.stringify(value);
}

/** `2025-01-01T10:00:00.000Z` → `2025-01-01 10:00:00`: UTC, to the second. */
export function timeText(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}
