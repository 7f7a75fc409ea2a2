import type { Model } from "@llmgw/domain";

/**
 * What the request path asks of the control plane for an on-demand model (SPEC §7.2, §7.3), and
 * nothing else of it: `createApp` hands it over, so the gateway reaches into no service.
 */
export type GatewayWakes = {
  /** A request found no ready replica: the model is wanted now (the scheduler is asked to run). */
  wake(model: Model, at: Date): Promise<void>;
  /** The model is in use at `ms`: its wake is kept fresh, without asking the scheduler to run. */
  keepAwake(model: string, ms: number): Promise<void>;
};
