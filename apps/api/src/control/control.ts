import type { Model } from "@llmgw/domain";
import type { Deps } from "../deps";
import type { GatewayControl } from "../gateway/control";
import { SchedulerRuntime } from "../scheduler/runtime";
import type { ControlFace } from "../services/control";
import { PullRunner } from "../services/pullRunner";

/**
 * What this process controls, beside the leaf ports of `Deps`: the scheduler's runtime (its loop,
 * leader lock, run queue and figures), the on-demand wakes, and the pulls it downloads. Built once
 * by whoever builds the app (`llmgw serve`'s server.ts, a test's harness) and handed explicitly:
 * the scheduler, the autoscaler and the usage recorder take it whole; the gateway and the services
 * see only the face they ask of it (`GatewayControl`, `ControlFace`).
 */
export class Control implements ControlFace, GatewayControl {
  /** On-demand models woken, with when: the scheduler wants one replica until idle. */
  readonly wakes = new Map<string, number>();
  readonly runtime = new SchedulerRuntime();
  /** Pulls from the Hugging Face Hub this process downloads (SPEC §10.4); a test may give its own. */
  pulls: PullRunner;

  constructor(
    private readonly deps: Deps,
    options: { pulls?: PullRunner } = {},
  ) {
    this.pulls = options.pulls ?? new PullRunner();
  }

  async wake(model: Model, at: Date): Promise<void> {
    await this.keepAwake(model.name, at.getTime());
    this.nudge();
  }

  /**
   * The wake itself: stored (later ones win), and this process's picture of wakes moved on. The
   * gateway records it again while a model serves (gateway/idle.ts), which needs no scheduler run.
   */
  async keepAwake(model: string, ms: number): Promise<void> {
    await this.deps.store.wakes.wake(model, ms);
    if (ms > (this.wakes.get(model) ?? Number.NEGATIVE_INFINITY)) this.wakes.set(model, ms);
  }

  nudge(): void {
    this.runtime.nudge();
  }

  replicaIdle(replica: string): void {
    this.runtime.replicaIdle(replica);
  }

  /** `llmgw serve`: pulls a restart interrupted continue, and queued ones are looked for. */
  startPulls(): Promise<void> {
    return this.pulls.start(this.deps);
  }

  nudgePulls(): void {
    this.pulls.nudge(this.deps);
  }

  cancelPull(id: string): Promise<void> {
    return this.pulls.cancel(id);
  }
}
