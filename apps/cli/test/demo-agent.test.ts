import { type RunningAgent, runAgent, Supervisor, simulatedMachine } from "@llmgw/agent";
import { desiredReplica, fakeControlPlane, recordingLog, replicaIn } from "@llmgw/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { simulatedEngines } from "../src/demo/simulated";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function simulatedNode(
  selfReported: Parameters<typeof runAgent>[0]["selfReported"] = [],
  options: Parameters<typeof simulatedEngines>[0] = {},
) {
  const control = await fakeControlPlane();
  const engines = simulatedEngines({ readyAfterMs: 600, ...options });
  const log = recordingLog();
  const agent: RunningAgent = runAgent({
    server: control.url,
    machine: simulatedMachine(
      { name: "sim-1", memoryGB: 64, cpuCount: 16, engines: [], agentVersion: "0.9.0" },
      () => engines.memoryInUseGB() + 16,
    ),
    supervisor: new Supervisor({ runner: engines, log, healthEveryMs: 20 }),
    intervalSeconds: 0.2,
    selfReported,
    log,
  });
  cleanup.push(control.close, agent.stop);
  return { control, engines };
}

describe("the demo's simulated agent runs the same agent code", () => {
  it("starts what the server desires, ready after a delay, measured about its memory", async () => {
    const { control, engines } = await simulatedNode();
    const replica = desiredReplica({ memoryGB: 20 });
    control.state.desired = [replica];

    const starting = await control.beat((b) => replicaIn(b, replica.id)?.state === "starting");
    const ready = await control.beat((b) => replicaIn(b, replica.id)?.state === "ready", starting);
    const beat = control.beats[ready];
    const measured = beat && replicaIn(beat, replica.id)?.measuredMemoryGB;
    expect(measured).toBeGreaterThanOrEqual(18);
    expect(measured).toBeLessThanOrEqual(22);
    expect(engines.memoryInUseGB()).toBeCloseTo(measured ?? 0, 0);
    // Free memory follows what the simulated engines and the self-reported replica hold.
    expect(control.beats.at(-1)?.node.freeMemoryGB).toBeLessThan(64 - 16 - 17);

    control.state.desired = [];
    await control.beat((b) => replicaIn(b, replica.id) === undefined, control.beats.length);
    expect(engines.memoryInUseGB()).toBe(0);
  });

  it("reports a replica it runs on its own as it is, and never starts or stops it", async () => {
    const experiment = { id: "adhoc-1", model: "alice-experiment", state: "ready" as const, memoryGB: 16 };
    const { control, engines } = await simulatedNode([experiment]);
    // A server that echoes it back as desired must not make the agent start a second copy.
    control.state.desired = [desiredReplica({ id: "adhoc-1", model: "alice-experiment" })];

    const first = await control.beat((b) => replicaIn(b, "adhoc-1") !== undefined);
    await control.beat(() => true, first + 3, "a few more heartbeats");
    expect(control.beats.every((b) => b.replicas.length === 1)).toBe(true);
    expect(control.beats.at(-1)?.replicas).toEqual([experiment]);
    expect(engines.memoryInUseGB()).toBe(0);
  });

  it("fails every request of the revision it is told to with a 500, healthy all the same", async () => {
    const { control } = await simulatedNode([], {
      readyAfterMs: 50,
      failing: (replica) => (replica.revision === 2 ? 500 : null),
    });
    const good = desiredReplica({ revision: 1 });
    const bad = desiredReplica({ revision: 2 });
    control.state.desired = [good, bad];

    // Ready means its health check answered: the failing engine loads and says it is healthy.
    const both = await control.beat((b) => [good, bad].every((r) => replicaIn(b, r.id)?.state === "ready"));
    const ask = async (id: string) => {
      const endpoint = control.beats[both] && replicaIn(control.beats[both], id)?.endpoint;
      const res = await fetch(`${endpoint}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "tiny-llama",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 2,
        }),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code?: unknown } } };
    };
    expect((await ask(good.id)).status).toBe(200);
    const failed = await ask(bad.id);
    expect(failed.status).toBe(500);
    expect(failed.body.error?.code).toBe(500);
    // Every request, not only the first.
    expect((await ask(bad.id)).status).toBe(500);
  });

  it("refuses a replica whose weights its mirror does not hold: failed at once with the reason, never restarted", async () => {
    const missing = "fetching http://mirror.test/m/Q9/missing.gguf: 404 Not Found";
    const { control } = await simulatedNode([], {
      readyAfterMs: 50,
      weightsMissing: async (replica) => (replica.revision === 2 ? missing : null),
    });
    const good = desiredReplica({ revision: 1 });
    const bad = desiredReplica({ revision: 2 });
    control.state.desired = [good, bad];

    const failed = await control.beat((b) => replicaIn(b, bad.id)?.state === "failed");
    const ready = await control.beat((b) => replicaIn(b, good.id)?.state === "ready");
    await control.beat(() => true, Math.max(failed, ready) + 3, "a few more heartbeats");
    const states = control.beats.slice(failed).map((b) => replicaIn(b, bad.id)?.state);
    expect(states.every((s) => s === "failed")).toBe(true);
    expect(JSON.stringify(control.beats[failed])).toContain(missing);
  });
});
