/** How numbers read on the dashboard: whole gigabytes, bytes in the largest sensible unit, ages. */

export function gb(value: number): string {
  return `${Number.isInteger(value) ? value : value.toFixed(1)} GB`;
}

const BYTE_UNITS = ["B", "KB", "MB", "GB", "TB"];

export function bytes(value: number): string {
  let n = value;
  let unit = 0;
  while (n >= 1024 && unit < BYTE_UNITS.length - 1) {
    n /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? n : n.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** Bytes done of a whole, in the whole's unit: "1.2 / 4.1 GB" (one unit reads faster than two). */
export function bytesOf(done: number, total: number): string {
  let unit = 0;
  let scale = 1;
  while (total >= scale * 1024 && unit < BYTE_UNITS.length - 1) {
    scale *= 1024;
    unit += 1;
  }
  const figure = (n: number) => (unit === 0 ? String(n) : (n / scale).toFixed(1));
  return `${figure(done)} / ${figure(total)} ${BYTE_UNITS[unit]}`;
}

/** A rate or count that reads at a glance: one decimal below 10, whole above. */
export function rate(value: number): string {
  if (value === 0) return "0";
  return value < 10 ? value.toFixed(1).replace(/\.0$/, "") : Math.round(value).toLocaleString();
}

/** A duration in milliseconds: "180 ms", "1.4 s". */
export function millis(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A wait in seconds: "12 s", "3 min". */
export function waited(seconds: number): string {
  return seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

export function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((part / whole) * 100)));
}

export function ago(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "never";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

export function dateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** A whole number from a text field, or null when it is not one. */
export function wholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  return Number(trimmed);
}
