// How fast a pull goes and how long it has left (SPEC §10.6: the dashboard's "speed and time left",
// `llmgw ctl mirror pull`'s progress bar), from the progress it reports. One rule for both.

/** The seconds of progress the speed is averaged over: long enough to smooth, short enough to follow. */
const WINDOW_MS = 10_000;

/** Progress samples `(when, bytes done)`, kept for the last few seconds. */
export class TransferRate {
  readonly #samples: { atMs: number; bytes: number }[] = [];

  /** Records that `bytes` were done at `atMs`. A smaller count than before starts over (a restart). */
  add(atMs: number, bytes: number): void {
    const last = this.#samples.at(-1);
    if (last && bytes < last.bytes) this.#samples.length = 0;
    this.#samples.push({ atMs, bytes });
    while (this.#samples.length > 2 && atMs - (this.#samples[0]?.atMs ?? atMs) > WINDOW_MS)
      this.#samples.shift();
  }

  /** Bytes a second over the window; null until there is a second of progress to go by. */
  bytesPerSecond(): number | null {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.atMs - first.atMs < 1000) return null;
    return ((last.bytes - first.bytes) * 1000) / (last.atMs - first.atMs);
  }

  /** Seconds until `total` at the current speed; null when the speed is not known or is nil. */
  secondsLeft(total: number): number | null {
    const speed = this.bytesPerSecond();
    const last = this.#samples.at(-1);
    if (speed === null || speed <= 0 || !last) return null;
    return Math.max(0, (total - last.bytes) / speed);
  }
}

/** `850 KB/s`, `112 MB/s`, `1.2 GB/s` (decimal, as network speeds are given). */
export function formatSpeed(bytesPerSecond: number): string {
  if (bytesPerSecond >= 1e9) return `${(bytesPerSecond / 1e9).toFixed(1)} GB/s`;
  if (bytesPerSecond >= 1e6) return `${Math.round(bytesPerSecond / 1e6)} MB/s`;
  return `${Math.round(bytesPerSecond / 1e3)} KB/s`;
}

/** `45 s`, `12 min`, `3 h 20 min`: what a person reads at a glance. */
export function formatTimeLeft(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
