import {
  type DesiredReplica,
  type EngineProcess,
  type EngineRunner,
  type Exit,
  ReplicaRefused,
} from "@llmgw/agent";
import { type Failure, StandInEngine } from "@llmgw/simulation";

export type SimulatedEngines = EngineRunner & {
  /** What the simulated engines hold now, for the simulated machine's free memory. */
  memoryInUseGB(): number;
};

export type SimulationOptions = {
  /** How long an engine takes to load its weights and answer /health; a little jitter is added. */
  readyAfterMs?: number;
  random?: () => number;
  /**
   * How an engine fails every inference request, by what it was asked to run (its revision,
   * source, args), or null: it still loads and answers its health check, as an engine whose
   * weights load but cannot answer does. None fail when not given.
   */
  failing?: (replica: DesiredReplica) => Failure | null;
  /**
   * Why the weights the replica names cannot be had (a file the mirror does not hold), or null:
   * the replica is refused, `failed` at once and never restarted, as a real agent's fetch is.
   */
  weightsMissing?: (replica: DesiredReplica) => Promise<string | null>;
};

/**
 * The demo's engines: no process, a stand-in that loads for a few seconds (its memory growing as
 * the weights come in), then answers healthy and holds about the replica's memory, give or take
 * what a real engine's estimate is off by. Each answers the OpenAI API for real on a port of its
 * own (a generated reply streamed at a chat model's pace), so the demo serves `/v1` end to end.
 */
export function simulatedEngines(options: SimulationOptions = {}): SimulatedEngines {
  const readyAfterMs = options.readyAfterMs ?? 4000;
  const random = options.random ?? Math.random;
  const running = new Set<{ heldGB(): number }>();
  return {
    memoryInUseGB: () => [...running].reduce((sum, engine) => sum + engine.heldGB(), 0),
    async start(replica) {
      const missing = await options.weightsMissing?.(replica);
      if (missing) throw new ReplicaRefused(missing);
      const startedAt = Date.now();
      const loadMs = readyAfterMs * (0.75 + random() * 0.5);
      // An engine needs some memory even when the placement asked for none.
      const targetGB = Math.max(0.5, replica.memoryGB * (0.9 + random() * 0.2));
      let finish: (exit: Exit) => void = () => undefined;
      const exited = new Promise<Exit>((resolve) => {
        finish = resolve;
      });
      const loaded = () => Math.min(1, (Date.now() - startedAt) / loadMs);
      const engine = { heldGB: () => Math.round(targetGB * loaded() * 100) / 100 };
      const server = await StandInEngine.start({
        model: replica.model,
        tokensPerSecond: 25 + Math.round(random() * 25),
        replyTokens: 48,
        forgetful: true,
        // A CPU node's llama-server: prompts read at a few thousand tokens a second, recent ones
        // kept, so a card's cache hit ratio and routing by beginning show (SPEC §7.1a).
        promptCacheTokens: 32_768,
        prefillTokensPerSecond: 2_000,
        // Which replica answered, as a real engine names its build: the rollout bench reads it.
        fingerprint: replica.id,
      });
      server.knobs.failing = options.failing?.(replica) ?? null;
      running.add(engine);
      const weightsBytes = Math.round(targetGB * 1e9);
      const process: EngineProcess = {
        exited,
        endpoint: server.url,
        healthy: async () => loaded() >= 1,
        measureMemoryGB: async () => engine.heldGB(),
        progress: () => ({
          phase: "load",
          bytesDone: Math.round(weightsBytes * loaded()),
          bytesTotal: weightsBytes,
        }),
        async stop() {
          running.delete(engine);
          await server.close();
          finish({ code: 0, signal: "SIGTERM" });
        },
        lastOutput: () => [],
      };
      return process;
    },
  };
}
