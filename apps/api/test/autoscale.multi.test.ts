import { describeOnPostgres } from "@llmgw/store/testing";
import { afterEach, expect, it } from "vitest";
import { beatOver, TestAgent } from "./autoscale-kit";
import { until } from "./gateway-kit";
import { modelInput } from "./harness";
import { useTwoServers } from "./multi-kit";

// SPEC §9.1 across processes: two `llmgw serve` on one PostgreSQL, half the traffic through each.
// The scheduler's leader scales for the sum, and both show the same numbers. With 1 request per
// replica wanted, a leader that counted only its own 2 requests would want 2 replicas, not 4.

type View = { autoscale: { demand: number; wanted: number } | null };

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describeOnPostgres("autoscaling on two processes", () => {
  const { servers } = useTwoServers();
  let agent: TestAgent | null = null;

  afterEach(async () => {
    await agent?.close();
    agent = null;
  });

  it("sums the demand of both processes: the leader scales for the sum, and both show it", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    agent = new TestAgent(beatOver(a.url));
    await agent.beat();
    agent.run(100);
    const model = modelInput({ scaling: { min: 1, max: 4, idleTimeoutSeconds: 900, targetInFlight: 1 } });
    expect((await post(a.url, "/api/v1/models", model)).status).toBe(201);
    const running = agent;
    await until(() => running.engines.size === 1, "the first replica running", 20_000);
    // Both processes route to it once they have heard it is ready.
    const routable = async (url: string) => {
      const res = await fetch(`${url}/api/v1/models/${model.name}`);
      const view = (await res.json()) as { replicas: { state: string; endpoint: string | null }[] };
      return view.replicas.some((r) => r.state === "ready" && r.endpoint !== null);
    };
    await until(async () => (await routable(a.url)) && (await routable(b.url)), "ready on both", 20_000);

    const release = running.hold();
    const chat = { model: model.name, messages: [{ role: "user", content: "hi" }] };
    const burst = [a, a, b, b].map((s) => post(s.url, "/v1/chat/completions", chat));
    const line = async (url: string) =>
      ((await (await fetch(`${url}/api/v1/models/${model.name}`)).json()) as View).autoscale;
    for (const server of [a, b]) {
      await until(
        async () => {
          const seen = await line(server.url);
          return seen?.demand === 4 && seen.wanted === 4;
        },
        `demand 4 and wanted 4 on ${server.url}`,
        20_000,
      );
    }
    await until(() => running.engines.size === 4, "four replicas running", 20_000);
    release();
    expect((await Promise.all(burst)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 120_000);
});
