import type { Model } from "@llmgw/domain";

/**
 * What the request path asks of the control plane (SPEC §7.2, §7.3, §11.2), and nothing else of
 * it: the app hands its `Control` over as this, so the gateway reaches into no service and no
 * scheduler.
 */
export type GatewayControl = {
  /** A request found no ready replica: the model is wanted now (the scheduler is asked to run). */
  wake(model: Model, at: Date): Promise<void>;
  /** The model is in use at `ms`: its wake is kept fresh, without asking the scheduler to run. */
  keepAwake(model: string, ms: number): Promise<void>;
  /** This process's last request on `replica` ended: a draining one may stop now (SPEC §11.2). */
  replicaIdle(replica: string): void;
};
