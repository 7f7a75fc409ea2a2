import type { EngineProcess, EngineRunner, Exit } from "./supervisor";

export type SimulatedEngines = EngineRunner & {
  /** What the simulated engines hold now, for the simulated machine's free memory. */
  memoryInUseGB(): number;
};

export type SimulationOptions = {
  /** How long an engine takes to load its weights and answer /health; a little jitter is added. */
  readyAfterMs?: number;
  random?: () => number;
};

/**
 * The demo's engines: no process, a stand-in that loads for a few seconds (its memory growing as
 * the weights come in), then answers healthy and holds about the replica's memory, give or take
 * what a real engine's estimate is off by.
 */
export function simulatedEngines(options: SimulationOptions = {}): SimulatedEngines {
  const readyAfterMs = options.readyAfterMs ?? 4000;
  const random = options.random ?? Math.random;
  const running = new Set<{ heldGB(): number }>();
  return {
    memoryInUseGB: () => [...running].reduce((sum, engine) => sum + engine.heldGB(), 0),
    async start(replica) {
      const startedAt = Date.now();
      const loadMs = readyAfterMs * (0.75 + random() * 0.5);
      // An engine needs some memory even when the placement asked for none.
      const targetGB = Math.max(0.5, replica.memoryGB * (0.9 + random() * 0.2));
      let finish: (exit: Exit) => void = () => undefined;
      const exited = new Promise<Exit>((resolve) => {
        finish = resolve;
      });
      const engine = {
        heldGB: () => Math.round(targetGB * Math.min(1, (Date.now() - startedAt) / loadMs) * 100) / 100,
      };
      running.add(engine);
      const process: EngineProcess = {
        exited,
        healthy: async () => Date.now() - startedAt >= loadMs,
        measureMemoryGB: async () => engine.heldGB(),
        async stop() {
          running.delete(engine);
          finish({ code: 0, signal: "SIGTERM" });
        },
        lastOutput: () => [],
      };
      return process;
    },
  };
}
