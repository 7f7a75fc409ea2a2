import type { Heartbeat } from "@llmgw/domain";
import { afterEach } from "vitest";
import { type Autoscaler, startAutoscaler } from "../src/autoscale/autoscaler";
import { type Scheduler, startScheduler } from "../src/scheduler";
import { TestAgent } from "./autoscale-kit";
import type { GatewayTest } from "./gateway-kit";

// The control loops on the wall clock, as `llmgw serve` runs them: the scheduler, the autoscaler
// and one agent beating every 50 ms, each test's own and all stopped after it.

export function useControlLoops(gw: GatewayTest) {
  const { api } = gw;
  // Null when the configuration turns the scheduler off (LLMGW_SCHEDULER=off).
  let running: { autoscaler: Autoscaler; scheduler: Scheduler | null; agent: TestAgent } | null = null;

  afterEach(async () => {
    await running?.agent.close();
    await running?.autoscaler.stop();
    await running?.scheduler?.stop();
    running = null;
    api.deps.world.setAutoscale(new Map());
  });

  /** Starts the loops with an agent on a node of `node`'s facts; the scheduler runs every `intervalMs`. */
  return async function start(
    options: { node?: Partial<Heartbeat["node"]>; intervalMs?: number } = {},
  ): Promise<TestAgent> {
    const agent = new TestAgent(
      async (body) => (await api.client.agents.heartbeat.$post({ json: body })).json(),
      options.node,
    );
    await agent.beat();
    // As server.ts does: the autoscaler first, handed to the scheduler, whose runs read it.
    const autoscaler = await startAutoscaler(api.deps, api.control, { demand: () => gw.demand() });
    const scheduler = startScheduler(api.deps, api.control, {
      intervalMs: options.intervalMs ?? 500,
      debounceMs: 5,
      fleetDebounceMs: 5,
      scale: autoscaler,
    });
    running = { autoscaler, scheduler, agent };
    agent.run(50);
    return agent;
  };
}
