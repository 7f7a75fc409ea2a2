import type { Store } from "@llmgw/store";

/** How often the store is asked which other processes route which models. */
export const PEERS_POLL_MS = 2_000;
/** A process counts as routing a model while it recorded traffic for it this recently. */
export const PEERS_WINDOW_SECONDS = 10;

/**
 * Which models another llmgw process routes too (SPEC §7.1a: several processes behind a balancer
 * must place a prompt alike). A process alone places beginnings by its own load, which it sees
 * whole; one that shares a model with another sends a beginning home (its rendezvous replica) past
 * a holder it chose by load, which the other does not see. Read from the traffic seconds every
 * process on a shared PostgreSQL records (§7.7); an embedded store is never shared, so none there.
 */
export class Peers {
  #shared: ReadonlySet<string> = new Set();
  #timer: ReturnType<typeof setInterval> | null = null;
  #asking = false;

  constructor(
    private readonly store: Pick<Store, "kind" | "traffic">,
    /** This process's name in the traffic seconds (`Deps.origin`). */
    private readonly self: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Whether another process recorded traffic for `model` within the window, when last asked. */
  sharing(model: string): boolean {
    return this.#shared.has(model);
  }

  /** Asks now and then every PEERS_POLL_MS (unref'd); nothing on a store no other process shares. */
  start(): void {
    if (this.store.kind !== "postgres" || this.#timer !== null) return;
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), PEERS_POLL_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One question to the store; a question still being answered is not asked again. */
  async refresh(nowSeconds = Math.floor(Date.now() / 1000)): Promise<void> {
    if (this.#asking) return;
    this.#asking = true;
    try {
      this.#shared = new Set(
        await this.store.traffic.othersModels(this.self, nowSeconds - PEERS_WINDOW_SECONDS),
      );
    } catch (err) {
      this.onError(err);
    } finally {
      this.#asking = false;
    }
  }
}
