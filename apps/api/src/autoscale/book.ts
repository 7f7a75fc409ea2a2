import { type ModelScaled, resumeWindow, type ScaleWindow, scaleReason, scaleStep } from "@llmgw/domain";
import type { StoredScale } from "@llmgw/store";
import type { ScaleLine } from "./lines";

/** What one second of the leader's rule changed: rows to store, and the changes of wanted to tell. */
export interface BookStep {
  /** Models whose wanted or holdUntil moved, as they are to be stored. */
  rows: StoredScale[];
  /** Models whose wanted moved (SPEC §9.5: a `model.scaled` event and an audit entry each). */
  scaled: ModelScaled[];
}

/**
 * What the store holds of every autoscaled model's wanted replicas, and, in the leader, each
 * model's window (SPEC §9.3). Every process keeps `stored` up to date from the rows; only the
 * leader steps the windows and writes what moved. A process that becomes the leader starts each
 * window from the stored row, so a change of leader neither drops replicas early nor forgets a
 * burst.
 */
export class ScaleBook {
  readonly stored = new Map<string, Omit<StoredScale, "model">>();
  readonly #windows = new Map<string, ScaleWindow>();

  /** Rows read from the store (another leader's, or this one's own, read back). */
  take(rows: readonly StoredScale[]): void {
    for (const { model, ...row } of rows) this.stored.set(model, row);
  }

  /** No longer the leader: the next time it is, it starts again from the store. */
  forgetWindows(): void {
    this.#windows.clear();
  }

  /** One second of the rule for every autoscaled model (the leader's). */
  step(lines: readonly ScaleLine[], now: number, windowSeconds: number): BookStep {
    const windowMs = windowSeconds * 1000;
    const out: BookStep = { rows: [], scaled: [] };
    const seen = new Set<string>();
    for (const { model, demand, target, floor, desired } of lines) {
      const { name, scaling } = model;
      seen.add(name);
      const row = this.stored.get(name);
      const window =
        this.#windows.get(name) ?? (row ? resumeWindow(row.wanted, row.holdUntil, now, windowMs) : []);
      const next = scaleStep(window, { at: now, desired, floor, max: scaling.max, windowMs });
      this.#windows.set(name, next.window);
      // A model without a row has wanted its floor all along.
      const before = row ?? { wanted: floor, holdUntil: null };
      if (before.wanted === next.wanted && before.holdUntil === next.holdUntil) continue;
      const stored = { wanted: next.wanted, holdUntil: next.holdUntil };
      this.stored.set(name, stored);
      out.rows.push({ model: name, ...stored });
      if (before.wanted === next.wanted) continue;
      const reason = scaleReason({
        from: before.wanted,
        to: next.wanted,
        demand,
        target,
        floor,
        max: scaling.max,
        windowSeconds,
      });
      out.scaled.push({ model: name, from: before.wanted, to: next.wanted, demand, reason });
    }
    // Models no longer autoscaled (or gone) keep no window and want nothing held: if they come
    // back, they start afresh rather than at a burst of long ago.
    for (const name of this.#windows.keys()) if (!seen.has(name)) this.#windows.delete(name);
    for (const [name, row] of this.stored) {
      if (seen.has(name) || (row.wanted === 0 && row.holdUntil === null)) continue;
      const cleared = { wanted: 0, holdUntil: null };
      this.stored.set(name, cleared);
      out.rows.push({ model: name, ...cleared });
    }
    return out;
  }
}
