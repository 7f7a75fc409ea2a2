import { type Model, modeOf } from "@llmgw/domain";
import type { Deps } from "../deps";
import type { GatewayControl } from "./control";

/** The least time between two refreshes of one model's stored wake from this process. */
const THROTTLE_MS = 1_000;
/** How often a model with a request in flight has its wake refreshed, at most (and at most half its idle timeout). */
const WHILE_BUSY_MS = 5_000;

const NOTHING = () => {};

/**
 * Keeps an on-demand model's stored wake fresh while it serves (SPEC §7.3): the wake is recorded
 * again at the end of each request and every few seconds while any is in flight, so idle time
 * counts from the end of the model's last request in any process, and a model with a request in
 * flight is never idle. Writes are throttled per model (a trailing write catches the last end).
 */
export class IdleClock {
  readonly #lastWrite = new Map<string, number>();
  readonly #trailing = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #busy = new Map<string, { model: Model; count: number }>();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly control: GatewayControl,
  ) {}

  /** A request of `model` was sent to a replica; returns what to call when it has ended. */
  began(model: Model): () => void {
    if (modeOf(model.scaling) !== "ondemand") return NOTHING;
    const busy = this.#busy.get(model.name) ?? { model, count: 0 };
    busy.count++;
    this.#busy.set(model.name, busy);
    this.#tick();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      busy.count--;
      if (busy.count <= 0) this.#busy.delete(model.name);
      this.touch(model);
    };
  }

  /** Requests of an on-demand model wait for it: it is in use, and its wake must not lapse meanwhile. */
  keepAwake(model: Model): void {
    if (modeOf(model.scaling) === "ondemand") this.touch(model);
  }

  /** Records the model as used now, at most once a second; a later call inside that second is kept for its end. */
  touch(model: Model): void {
    const last = this.#lastWrite.get(model.name) ?? Number.NEGATIVE_INFINITY;
    const wait = last + THROTTLE_MS - performance.now();
    if (wait <= 0) {
      this.#write(model);
      return;
    }
    if (this.#trailing.has(model.name)) return;
    const timer = setTimeout(() => {
      this.#trailing.delete(model.name);
      this.#write(model);
    }, wait);
    timer.unref();
    this.#trailing.set(model.name, timer);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const timer of this.#trailing.values()) clearTimeout(timer);
    this.#trailing.clear();
  }

  #write(model: Model): void {
    this.#lastWrite.set(model.name, performance.now());
    // The same wake kept fresh: recorded, without asking the scheduler to run.
    this.control
      .keepAwake(model.name, this.deps.now().getTime())
      .catch((err: unknown) => this.deps.log.error({ err, model: model.name }, "refreshing a wake failed"));
  }

  #tick(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#busy.size === 0) {
        if (this.#timer) clearInterval(this.#timer);
        this.#timer = null;
        return;
      }
      const now = performance.now();
      for (const { model } of this.#busy.values()) {
        const every = Math.min(WHILE_BUSY_MS, model.scaling.idleTimeoutSeconds * 500);
        if (now - (this.#lastWrite.get(model.name) ?? Number.NEGATIVE_INFINITY) >= every) this.touch(model);
      }
    }, THROTTLE_MS);
    this.#timer.unref();
  }
}
