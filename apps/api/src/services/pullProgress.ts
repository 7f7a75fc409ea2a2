import type { ChangeEvent, Pull } from "@llmgw/domain";
import type { Deps } from "../deps";
import { commit, UNCHANGED } from "./commit";

/** SPEC §10.4: `mirror.pull` events at most 4 a second. */
const WRITE_EVERY_MS = 250;

/**
 * A running pull's progress, written to the store with its `mirror.pull` event at most 4 times a
 * second, and at least every third of the lease (which each write renews) while bytes do not
 * move. A write the store refuses means the pull is no longer this process's (cancelled, or taken
 * over after a stall): `onLost` stops the download.
 */
export class PullProgress {
  #pull: Pull;
  #lastAt = 0;
  #changed = false;
  #writing: Promise<boolean> | null = null;
  #timer: NodeJS.Timeout | null = null;
  readonly #renew: NodeJS.Timeout;
  #lost = false;

  constructor(
    private readonly deps: Deps,
    pull: Pull,
    private readonly leaseMs: number,
    private readonly onLost: () => void,
  ) {
    this.#pull = structuredClone(pull);
    // The lease is renewed by any write; with bytes to tell, at the events' pace.
    const renew = () => (this.#changed ? this.#schedule() : void this.#write());
    this.#renew = setInterval(renew, Math.max(50, Math.floor(leaseMs / 3)));
    this.#renew.unref();
  }

  /** Tells the screens the pull is downloading (its claim is already stored). */
  announce(): void {
    void this.#commit(async () => ({ result: true, events: [{ type: "mirror.pull", data: this.#pull }] }));
  }

  /** File `i` of the pull now holds `done` bytes. */
  fileBytes(i: number, done: number): void {
    const file = this.#pull.files[i];
    if (!file || file.bytesDone === done) return;
    file.bytesDone = done;
    this.#pull.bytesDone = this.#pull.files.reduce((sum, f) => sum + f.bytesDone, 0);
    this.#changed = true;
    this.#schedule();
  }

  /** A write now, or when the last one is a quarter second old. */
  #schedule(): void {
    if (this.#timer || this.#writing || this.#lost) return;
    const wait = WRITE_EVERY_MS - (performance.now() - this.#lastAt);
    if (wait <= 0) void this.#write();
    else {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        void this.#write();
      }, wait);
    }
  }

  /** Writes what is not written yet; false when the pull is no longer this process's. */
  async flush(): Promise<boolean> {
    await this.#writing;
    return this.#write();
  }

  /** Ends the pull in the store (complete, failed, cancelled), announced unless told not to. */
  async end(
    patch: Partial<Pick<Pull, "state" | "error">>,
    options: { announce?: boolean } = {},
  ): Promise<void> {
    this.close();
    await this.#writing;
    const final: Pull = { ...this.#pull, ...patch };
    if (final.state === "complete") {
      final.files = final.files.map((f) => ({ ...f, bytesDone: f.bytes }));
      final.bytesDone = final.bytesTotal;
    }
    await this.#commit(async (tx) => {
      const ended = await tx.pulls.finish(final, this.deps.origin);
      const events: ChangeEvent[] =
        ended && options.announce !== false ? [{ type: "mirror.pull", data: ended }] : [];
      return { result: true, events };
    });
  }

  close(): void {
    clearInterval(this.#renew);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #write(): Promise<boolean> {
    if (this.#lost) return Promise.resolve(false);
    if (this.#writing) return this.#writing;
    const announce = this.#changed;
    this.#changed = false;
    this.#lastAt = performance.now();
    const write = this.#commit(async (tx) => {
      const stored = await tx.pulls.progress(this.#pull, this.deps.origin, this.leaseMs);
      if (!stored) return { result: false, events: [] };
      const events: ChangeEvent[] = announce ? [{ type: "mirror.pull", data: stored }] : [];
      return { result: true, events };
    }).then((ours) => {
      if (!ours && !this.#lost) {
        this.#lost = true;
        this.onLost();
      }
      return ours;
    });
    this.#writing = write.finally(() => {
      this.#writing = null;
      // Bytes that came while writing are written next, within the same rate.
      if (this.#changed) this.#schedule();
    });
    return this.#writing;
  }

  /** One store write with its events; pulls are not part of the world, so its snapshot stands. */
  #commit(change: Parameters<typeof commit<boolean>>[1]): Promise<boolean> {
    return commit(this.deps, change, () => UNCHANGED).catch((err: unknown) => {
      this.deps.log.error({ err, pull: this.#pull.id }, "writing a pull's progress failed");
      return true;
    });
  }
}
