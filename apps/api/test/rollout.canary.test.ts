import { describe, expect, it } from "vitest";
import { useControlLoops } from "./control-kit";
import { until, useGateway } from "./gateway-kit";
import { errorOf } from "./harness";

// SPEC §11.3: a canary holds one new replica beside every old one, takes its share of requests,
// keeps a session on one revision, and waits for promote or abort.

const gw = useGateway();
const { api } = gw;

const startLoops = useControlLoops(gw);

const start = () => startLoops({ node: { memoryGB: 128 } });

const view = async (name: string) => (await api.client.models[":name"].$get({ param: { name } })).json();
const replicas = async (name: string) =>
  (await (await api.client.fleet.replicas.$get()).json()).filter((r) => r.model === name);

function action(name: string, act: "promote" | "abort") {
  return api.client.models[":name"].rollout.$post({ param: { name }, json: { action: act } });
}

/** A model of 3 replicas with a 20 % canary of revision 2 held, its engines by revision. */
async function canary() {
  const agent = await start();
  const model = await gw.model({
    need: { minMemoryGB: 8 },
    scaling: { min: 3, max: 3, idleTimeoutSeconds: 900 },
  });
  await until(
    async () => (await replicas(model.name)).filter((r) => r.state === "ready").length === 3,
    "3 ready",
    15_000,
  );
  const res = await api.client.models[":name"].$patch(
    {
      param: { name: model.name },
      json: { source: "http://mirror.test/m/v2/m.gguf", rollout: { canaryPercent: 20 } },
    },
    { headers: { "If-Match": `"${model.version}"` } },
  );
  expect(res.status).toBe(200);
  await until(
    async () =>
      (await replicas(model.name)).filter((r) => r.state === "ready" && r.revision === 2).length === 1,
    "the canary ready",
    15_000,
  );
  const engines = async (revision: number) => {
    const ids = (await replicas(model.name)).filter((r) => (r.revision ?? 1) === revision).map((r) => r.id);
    return ids.map((id) => agent.engineOf(id));
  };
  return { model, agent, engines };
}

describe("a canary", () => {
  it("is held with every old replica, takes its share within 10 points over 200 requests, and sessions stick", async () => {
    const { model, engines } = await canary();
    const openai = gw.client();
    const [oldEngines, newEngines] = [await engines(1), await engines(2)];
    expect(oldEngines).toHaveLength(3);
    expect(newEngines).toHaveLength(1);
    const count = (list: typeof oldEngines) => list.reduce((n, e) => n + e.received.length, 0);
    const before = count(newEngines);
    for (let i = 0; i < 200; i++) {
      await openai.chat.completions.create({
        model: model.name,
        messages: [{ role: "user", content: "hi" }],
      });
    }
    const share = ((count(newEngines) - before) / 200) * 100;
    expect(Math.abs(share - 20)).toBeLessThanOrEqual(10);

    // Each session lands on one revision, request after request.
    for (let s = 0; s < 10; s++) {
      const user = `session-${s}`;
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const n = count(newEngines);
        await openai.chat.completions.create({
          model: model.name,
          user,
          messages: [{ role: "user", content: "hi" }],
        });
        seen.add(count(newEngines) > n ? "new" : "old");
      }
      expect(seen.size).toBe(1);
    }
    const { rollout } = await view(model.name);
    expect(rollout).toMatchObject({ state: "canary", replicas: { old: 3, new: 1 } });
    expect(rollout?.requests.new.sent).toBe(count(newEngines));
    expect(rollout?.requests.old.sent).toBe(count(oldEngines));
    const metrics = await (await api.app.request("/metrics")).text();
    expect(metrics).toContain(`llmgw_rollout_state{model="${model.name}",from="1",to="2"} 2`);
    expect(metrics).toContain(
      `llmgw_rollout_requests{model="${model.name}",revision="2",outcome="sent"} ${count(newEngines)}`,
    );
  }, 60_000);

  it("goes on as a rollout once promoted, and refuses a second promote", async () => {
    const { model } = await canary();
    const res = await action(model.name, "promote");
    expect(res.status).toBe(200);
    expect((await res.json()).rollout?.state).toBe("rolling");
    await until(async () => (await view(model.name)).rollout?.state === "done", "done", 30_000);
    expect((await replicas(model.name)).map((r) => r.revision)).toEqual([2, 2, 2]);
    const metrics = await (await api.app.request("/metrics")).text();
    expect(metrics).toContain(`llmgw_rollout_state{model="${model.name}",from="1",to="2"} 3`);
    expect((await errorOf(await action(model.name, "promote"), 409)).code).toBe("no_rollout");
  }, 60_000);

  it("rolls back on abort: the old source, args and revision back, the canary stopped", async () => {
    const { model } = await canary();
    const res = await action(model.name, "abort");
    expect(res.status).toBe(200);
    const aborted = await res.json();
    expect(aborted).toMatchObject({ revision: 1, source: model.source, rollout: { state: "rolledBack" } });
    await until(
      async () => (await replicas(model.name)).every((r) => (r.revision ?? 1) === 1),
      "canary gone",
      15_000,
    );
    expect((await errorOf(await action(model.name, "abort"), 409)).code).toBe("no_rollout");
  }, 60_000);
});
