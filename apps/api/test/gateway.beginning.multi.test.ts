import { StandInEngine } from "@llmgw/simulation";
import { describeOnPostgres } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { useTwoServers } from "./multi-kit";

// SPEC §7.1a across processes on one PostgreSQL: a beginning one process has never seen goes where
// the other sent it, with nothing shared between them but the model's ready replicas.

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function waitFor<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeOnPostgres("routing by beginning on two processes", () => {
  const { servers } = useTwoServers();

  it("sends a new beginning to the same replica from either process", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const engines = await Promise.all([StandInEngine.start(), StandInEngine.start(), StandInEngine.start()]);
    try {
      const node = heartbeat();
      expect((await post(a.url, "/api/v1/agents/heartbeat", node)).status).toBe(200);
      const model = modelInput({ scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 } });
      expect((await post(a.url, "/api/v1/models", model)).status).toBe(201);
      const placed = await waitFor("the leader to place three replicas", async () => {
        const replicas = (await (await fetch(`${a.url}/api/v1/fleet/replicas`)).json()) as {
          id: string;
          model: string;
          node: string | null;
        }[];
        const mine = replicas.filter((r) => r.model === model.name && r.node !== null);
        return mine.length === 3 ? mine : null;
      });
      const ready = placed.map((r, i) => ({
        id: r.id,
        model: model.name,
        state: "ready",
        endpoint: engines[i]?.url,
      }));
      expect((await post(a.url, "/api/v1/agents/heartbeat", { ...node, replicas: ready })).status).toBe(200);
      const tenant = (n: number) => ({
        model: model.name,
        messages: [
          { role: "system", content: `Tenant ${n}'s handbook: ${"a long page of it. ".repeat(400)}` },
          { role: "user", content: "a question" },
        ],
      });
      // Both processes must see all three replicas ready before the prompts are compared (one
      // answer alone shows only that one replica is: on a loaded machine the others may lag).
      for (const server of [a, b]) {
        await waitFor("the three replicas to be ready", async () => {
          const replicas = (await (await fetch(`${server.url}/api/v1/fleet/replicas`)).json()) as {
            model: string;
            state: string;
          }[];
          return replicas.filter((r) => r.model === model.name && r.state === "ready").length === 3
            ? true
            : null;
        });
        await waitFor("the replicas to answer", async () =>
          (await post(server.url, "/v1/chat/completions", tenant(-1))).status === 200 ? true : null,
        );
      }

      for (let n = 0; n < 9; n++) {
        expect((await post(a.url, "/v1/chat/completions", tenant(n))).status).toBe(200);
        expect((await post(b.url, "/v1/chat/completions", tenant(n))).status).toBe(200);
      }

      for (let n = 0; n < 9; n++) {
        const holders = engines.filter((e) => e.received.some((r) => r.text.includes(`Tenant ${n}'s`)));
        expect(holders, `tenant ${n}`).toHaveLength(1);
        expect(holders[0]?.received.filter((r) => r.text.includes(`Tenant ${n}'s`))).toHaveLength(2);
      }
      // And different tenants' beginnings are spread, not sent to one replica.
      expect(engines.filter((e) => e.received.length > 2).length).toBeGreaterThan(1);
    } finally {
      await Promise.all(engines.map((e) => e.close()));
    }
  });
});
