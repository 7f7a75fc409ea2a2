import type { ModelView } from "@llmgw/domain";
import { DRAIN_SETTLE_MS } from "@llmgw/domain";
import { describeOnPostgres } from "@llmgw/store/testing";
import { afterAll, expect, it } from "vitest";
import { beatOver, chatAt, TestAgent } from "./autoscale-kit";
import { until } from "./gateway-kit";
import { modelInput } from "./harness";
import { type ServeProcess, useTwoServers } from "./multi-kit";

// SPEC §11.2 and §11.4 across processes: two `llmgw serve` on one PostgreSQL. An old replica
// drains until no process has a request on it; the requests each revision was sent are summed
// over both processes. Each case is run with the requests through either process: one of the two
// is not the scheduler's leader, so a leader that only counted its own would fail one of them.

const V2 = "http://mirror.test/m/v2/m.gguf";

const json = (
  url: string,
  path: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function view(server: ServeProcess, name: string): Promise<ModelView> {
  return (await (await fetch(`${server.url}/api/v1/models/${name}`)).json()) as ModelView;
}

describeOnPostgres("a rollout on two processes", () => {
  const { servers } = useTwoServers();
  // One node for every case: a node whose agent has gone stays up (heartbeatSeconds 3600) and
  // would be given the next model's replica.
  let agent: TestAgent | null = null;

  afterAll(async () => {
    await agent?.close();
    agent = null;
  });

  /** A model of one replica, ready and routable through both processes; the agent beats to `a`. */
  async function oneReady(canaryPercent?: number) {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const running = agent ?? new TestAgent(beatOver(a.url), { memoryGB: 128 });
    if (!agent) {
      agent = running;
      await running.beat();
      running.run(100);
    }
    const model = modelInput({
      need: { minMemoryGB: 8 },
      scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
    });
    expect((await json(a.url, "/api/v1/models", "POST", model)).status).toBe(201);
    const routable = async (server: ServeProcess) =>
      (await view(server, model.name)).replicas.some((r) => r.state === "ready" && r.endpoint !== null);
    await until(async () => (await routable(a)) && (await routable(b)), "ready on both", 20_000);
    const [old] = [...running.engines].filter(([, e]) => e.model === model.name).map(([id]) => id);
    if (!old) throw new Error("no replica running");
    const patch = { source: V2, ...(canaryPercent ? { rollout: { canaryPercent } } : {}) };
    const { version } = await view(a, model.name);
    return {
      a,
      b,
      name: model.name,
      old,
      agent: running,
      rollOut: () =>
        json(a.url, `/api/v1/models/${model.name}`, "PATCH", patch, { "If-Match": `"${version}"` }),
    };
  }

  it.each(["a", "b"] as const)(
    "drains the old replica only once the request through %s has ended",
    async (through) => {
      const { a, b, name, old, agent, rollOut } = await oneReady();
      const server = through === "a" ? a : b;
      const release = agent.hold();
      const held = chatAt(server.url, name);
      const received = () => agent.engineOf(old).received.length;
      await until(() => received() === 1, "the request on the old replica");

      expect((await rollOut()).status).toBe(200);
      await until(
        async () => (await view(a, name)).replicas.some((r) => r.id === old && r.drainingSince !== undefined),
        "the old replica draining",
        20_000,
      );
      // Past the time a drain with nothing on it takes, the old engine still runs, still rolling.
      await new Promise((resolve) => setTimeout(resolve, DRAIN_SETTLE_MS + 2_000));
      expect(agent.engines.has(old)).toBe(true);
      expect((await view(a, name)).rollout?.state).toBe("rolling");

      release();
      expect((await held).status).toBe(200);
      await until(async () => (await view(a, name)).rollout?.state === "done", "the rollout done", 20_000);
      await until(() => !agent.engines.has(old), "the old engine stopped", 10_000);
      expect(agent.started.filter((e) => e.model === name).flatMap((e) => e.closedByClient)).toEqual([]);
    },
    90_000,
  );

  it.each(["a", "b"] as const)(
    "sums the requests each revision was sent through %s into what both processes show",
    async (through) => {
      const { a, b, name, rollOut } = await oneReady(50);
      expect((await rollOut()).status).toBe(200);
      await until(
        async () => (await view(a, name)).replicas.some((r) => r.revision === 2 && r.state === "ready"),
        "the canary ready",
        20_000,
      );
      await until(
        async () =>
          (await view(through === "a" ? a : b, name)).replicas.filter((r) => r.state === "ready").length ===
          2,
        "the canary routable",
        20_000,
      );
      const server = through === "a" ? a : b;
      for (let i = 0; i < 12; i++) expect((await chatAt(server.url, name)).status).toBe(200);

      const sent = (v: ModelView) =>
        (v.rollout?.requests.old.sent ?? 0) + (v.rollout?.requests.new.sent ?? 0);
      for (const shown of [a, b]) {
        await until(
          async () => sent(await view(shown, name)) === 12,
          `12 requests shown by ${shown.url}`,
          5_000,
        );
      }
      // Revision by revision, the process that sent nothing shows what the other counted.
      const [here, there] = await Promise.all([view(server, name), view(through === "a" ? b : a, name)]);
      expect(there.rollout?.state).toBe("canary");
      expect(there.rollout?.requests).toEqual(here.rollout?.requests);
    },
    90_000,
  );
});
