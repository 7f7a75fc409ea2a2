import { describe, expect, it } from "vitest";
import { runOnce } from "../src/scheduler";
import { useControlLoops } from "./control-kit";
import { until, useGateway } from "./gateway-kit";
import { beatOk, createOk, heartbeat, modelInput, replicaReport } from "./harness";

// SPEC §11.4: a rollout undoes itself, with the reason in numbers, when a new replica fails, is
// not ready in time, or the new revision's requests fail more than the old one's.

const gw = useGateway({ yaml: "rollout: { readySeconds: 30, maxErrorRatio: 0.2 }\n" });
const { api } = gw;

const startLoops = useControlLoops(gw);

const view = async (name: string) => (await api.client.models[":name"].$get({ param: { name } })).json();

async function patchSource(name: string, version: number, rollout?: { canaryPercent: number }) {
  const res = await api.client.models[":name"].$patch(
    { param: { name }, json: { source: "http://mirror.test/m/v2/m.gguf", ...(rollout ? { rollout } : {}) } },
    { headers: { "If-Match": `"${version}"` } },
  );
  expect(res.status).toBe(200);
  return res.json();
}

/** A model of one replica, ready on one node, driven by hand: beats and scheduler runs. */
async function oneReady() {
  const model = await createOk(
    api,
    modelInput({ need: { minMemoryGB: 8 }, scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } }),
  );
  const node = heartbeat({ node: { memoryGB: 64 } });
  await beatOk(api, node);
  await runOnce(api.deps, api.control);
  const [first] = (await view(model.name)).replicas;
  if (!first) throw new Error("no replica placed");
  await beatOk(api, {
    ...node,
    replicas: [replicaReport({ id: first.id, model: model.name, endpoint: "http://127.0.0.1:9" })],
  });
  return { model, node, first };
}

/** A model of two ready replicas served by the loops, with a 50% canary of revision 2 ready. */
async function twoWithCanary() {
  const model = await gw.model({
    need: { minMemoryGB: 8 },
    scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
  });
  const replicas = async () => (await view(model.name)).replicas;
  await until(
    async () => (await replicas()).filter((r) => r.state === "ready").length === 2,
    "2 ready",
    15_000,
  );
  await patchSource(model.name, model.version, { canaryPercent: 50 });
  await until(
    async () => (await replicas()).some((r) => r.revision === 2 && r.state === "ready"),
    "canary",
    15_000,
  );
  return { model, replicas };
}

describe("automatic rollback", () => {
  it("on a new replica reported failed, naming it and why", async () => {
    const { model, node, first } = await oneReady();
    await patchSource(model.name, model.version);
    await runOnce(api.deps, api.control);
    const fresh = (await view(model.name)).replicas.find((r) => r.revision === 2);
    if (!fresh) throw new Error("no new replica placed");
    await beatOk(api, {
      ...node,
      replicas: [
        replicaReport({ id: first.id, model: model.name, endpoint: "http://127.0.0.1:9" }),
        replicaReport({
          id: fresh.id,
          model: model.name,
          state: "failed",
          reason: "engine exited with code 1",
        }),
      ],
    });
    await runOnce(api.deps, api.control);

    const after = await view(model.name);
    expect(after).toMatchObject({ revision: 1, source: model.source });
    expect(after.rollout).toMatchObject({
      state: "rolledBack",
      reason: `rolled back: replica ${fresh.id} failed: engine exited with code 1`,
    });
    const audit = await api.deps.store.audit.list({ model: model.name });
    expect(audit.find((e) => e.action === "rollout" && e.by === "rollout")).toBeDefined();
  });

  it("on a new replica reported failed once, though the agent's next beat no longer holds it", async () => {
    // An agent stops reporting a failed replica as soon as the answer stops asking for it: often
    // before the scheduler runs again. The failure must still roll the rollout back.
    const { model, node, first } = await oneReady();
    await patchSource(model.name, model.version);
    await runOnce(api.deps, api.control);
    const fresh = (await view(model.name)).replicas.find((r) => r.revision === 2);
    if (!fresh) throw new Error("no new replica placed");
    const ready = replicaReport({ id: first.id, model: model.name, endpoint: "http://127.0.0.1:9" });
    const failed = replicaReport({
      id: fresh.id,
      model: model.name,
      state: "failed",
      reason: "404 Not Found",
    });
    await beatOk(api, { ...node, replicas: [ready, failed] });
    await beatOk(api, { ...node, replicas: [ready] });
    await runOnce(api.deps, api.control);

    const after = await view(model.name);
    expect(after).toMatchObject({ revision: 1, source: model.source });
    expect(after.rollout).toMatchObject({
      state: "rolledBack",
      reason: `rolled back: replica ${fresh.id} failed: 404 Not Found`,
    });
  });

  it("on a new replica not ready within rollout.readySeconds", async () => {
    const { model } = await oneReady();
    await patchSource(model.name, model.version);
    await runOnce(api.deps, api.control);
    const fresh = (await view(model.name)).replicas.find((r) => r.revision === 2);
    if (!fresh) throw new Error("no new replica placed");
    const later = Date.now() + 31_000;
    api.deps.now = () => new Date(later);
    await runOnce(api.deps, api.control);

    expect((await view(model.name)).rollout).toMatchObject({
      state: "rolledBack",
      reason: `rolled back: replica ${fresh.id} not ready within 30 s`,
    });
  });

  it("on the new revision's requests failing, in numbers, while no client request fails", async () => {
    const agent = await startLoops({ node: { memoryGB: 128 } });
    const { model, replicas } = await twoWithCanary();
    const canary = (await replicas()).find((r) => r.revision === 2);
    if (!canary) throw new Error("no canary");
    agent.engineOf(canary.id).knobs.failNext = Array(1000).fill(503);

    const openai = gw.client();
    const statuses: number[] = [];
    for (let i = 0; i < 40 && (await view(model.name)).rollout?.state === "canary"; i++) {
      await openai.chat.completions.create({
        model: model.name,
        messages: [{ role: "user", content: "hi" }],
      });
      statuses.push(200);
    }
    await until(async () => (await view(model.name)).rollout?.state === "rolledBack", "rolled back", 5_000);

    const { rollout } = await view(model.name);
    expect(rollout?.reason).toMatch(
      /^rolled back: (\d+) of (\d+) requests failed on revision 2 \(0 of \d+ on revision 1\)$/,
    );
    const [, failed, sent] = /(\d+) of (\d+)/.exec(rollout?.reason ?? "") ?? [];
    expect(Number(sent)).toBeGreaterThanOrEqual(10);
    expect(Number(failed) / Number(sent)).toBeGreaterThan(0.2);
    await until(
      async () => (await replicas()).every((r) => (r.revision ?? 1) === 1),
      "canary stopped",
      15_000,
    );
  }, 60_000);

  it("on an engine answering 500: the clients see the bad revision's 500s until the rollback, then none", async () => {
    const agent = await startLoops({ node: { memoryGB: 128 } });
    // Revision 2's engines load and say they are healthy, but answer every request with a 500
    // (a 500 is not retried elsewhere: the client gets it, unlike a 502/503).
    agent.failing = (replica) => (replica.revision === 2 ? 500 : null);
    const { model, replicas } = await twoWithCanary();

    const ask = async () => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: model.name, messages: [{ role: "user", content: "hi" }] }),
      });
      const body = (await res.json()) as { error?: { message?: string } };
      return { status: res.status, body };
    };
    const during: { status: number; body: { error?: { message?: string } } }[] = [];
    for (let i = 0; i < 60 && (await view(model.name)).rollout?.state === "canary"; i++)
      during.push(await ask());
    await until(async () => (await view(model.name)).rollout?.state === "rolledBack", "rolled back", 5_000);

    const { rollout, revision } = await view(model.name);
    expect(revision).toBe(1);
    const [, failed, sent, oldFailed] =
      /^rolled back: (\d+) of (\d+) requests failed on revision 2 \((\d+) of \d+ on revision 1\)$/.exec(
        rollout?.reason ?? "",
      ) ?? [];
    expect(Number(sent)).toBeGreaterThanOrEqual(10);
    expect(Number(failed)).toBe(Number(sent));
    expect(Number(oldFailed)).toBe(0);
    // What failed at the clients is the engine's own 500, and only on the bad revision: as many
    // as the judge counted, give or take the requests sent while its verdict was being stored.
    const errors = during.filter((a) => a.status !== 200);
    expect(
      errors.every((a) => a.status === 500 && a.body.error?.message === "the engine failed to answer"),
    ).toBe(true);
    expect(errors.length).toBeGreaterThanOrEqual(Number(failed));
    expect(errors.length).toBeLessThanOrEqual(Number(failed) + 5);
    await until(
      async () => (await replicas()).every((r) => (r.revision ?? 1) === 1),
      "canary stopped",
      15_000,
    );
    // Once it is stopped, every request lands on revision 1 and is answered.
    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push((await ask()).status);
    expect(after).toEqual(Array(10).fill(200));
  }, 60_000);
});
