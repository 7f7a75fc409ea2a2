import type { Replica } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { runOnce } from "../src/scheduler";
import { useControlLoops } from "./control-kit";
import { until, useGateway } from "./gateway-kit";
import { beatOk, createOk, heartbeat, modelInput, replicaReport } from "./harness";

// SPEC §11 (issue 38): a second PATCH during a rollout. The newest wins: the rollout goes on from
// the revision serving before the first change to a new revision; the one in between is dropped,
// its replicas drained like old ones and told to run what they ran until they stop.

const gw = useGateway();
const { api } = gw;
const startLoops = useControlLoops(gw);

const V1 = "http://mirror.test/m/v1/m.gguf";
const V2 = "http://mirror.test/m/v2/m.gguf";
const V3 = "http://mirror.test/m/v3/m.gguf";

const view = async (name: string) => (await api.client.models[":name"].$get({ param: { name } })).json();

async function patchSource(name: string, source: string) {
  const { version } = await view(name);
  const res = await api.client.models[":name"].$patch(
    { param: { name }, json: { source } },
    { headers: { "If-Match": `"${version}"` } },
  );
  expect(res.status).toBe(200);
  return res.json();
}

/** Every replica of the model as stored, stopping ones included. */
async function stored(name: string): Promise<Replica[]> {
  const all = await api.deps.store.replicas.list();
  return all.filter((r) => r.model === name);
}

describe("a second PATCH during a rollout", () => {
  it("goes on from the first rollout's old revision to a new one; the one in between drains", async () => {
    const model = await createOk(
      api,
      modelInput({
        source: V1,
        need: { minMemoryGB: 8 },
        scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      }),
    );
    const node = heartbeat({ node: { memoryGB: 64 } });
    /** One beat reporting `ready` ids ready (with an endpoint) and `starting` ids starting. */
    const beat = (ready: string[], starting: string[] = []) =>
      beatOk(api, {
        ...node,
        replicas: [
          ...ready.map((id) =>
            replicaReport({ id, model: model.name, endpoint: `http://127.0.0.1:${endpointPort(id)}` }),
          ),
          ...starting.map((id) => replicaReport({ id, model: model.name, state: "starting" })),
        ],
      });
    const ports = new Map<string, number>();
    const endpointPort = (id: string) => ports.get(id) ?? ports.set(id, 9000 + ports.size).get(id);
    /** The replicas of `revision` serving: not stopping, not draining. */
    const ofRevision = async (revision: number) =>
      (await stored(model.name)).filter(
        (r) => (r.revision ?? 1) === revision && r.state !== "stopping" && r.drainingSince === undefined,
      );
    // A drain ends on the scheduler's clock once no request is left on it (SPEC §9.3).
    let clock = Date.now();
    api.deps.now = () => new Date(clock);
    const drainsOver = async () => {
      clock += 3_100;
      await runOnce(api.deps, api.control);
    };

    await beat([]);
    await runOnce(api.deps, api.control);
    const old = (await ofRevision(1)).map((r) => r.id);
    expect(old).toHaveLength(2);
    await beat(old);

    // The first change: revision 2 surges; one of its replicas ready drains one of revision 1.
    await patchSource(model.name, V2);
    await runOnce(api.deps, api.control);
    const between = (await ofRevision(2)).map((r) => r.id);
    expect(between).toHaveLength(2);
    const [readyBetween = "", startingBetween = ""] = between;
    await beat([...old, readyBetween], [startingBetween]);
    await runOnce(api.deps, api.control);
    const oldLeft = (await ofRevision(1)).map((r) => r.id);
    expect(oldLeft).toHaveLength(1);
    await drainsOver();
    expect((await stored(model.name)).filter((r) => r.state === "stopping").map((r) => r.revision)).toEqual([
      1,
    ]);
    expect((await view(model.name)).rollout).toMatchObject({ from: 1, to: 2, state: "rolling" });

    // The second change, while revision 1 and 2 both serve.
    const second = await patchSource(model.name, V3);

    expect(second).toMatchObject({ revision: 3, source: V3 });
    expect(second.rollout).toMatchObject({ from: 1, to: 3, state: "rolling", replicas: { old: 3, new: 0 } });
    expect(second.rollout?.previous.source).toBe(V1);
    expect(second.rollout?.replaced).toEqual([
      { revision: 2, spec: { source: V2, profiles: [expect.objectContaining({ args: [] })] } },
    ]);
    // Each replica is told to run what its revision ran, not the newest source.
    const told = await beat([...oldLeft, readyBetween], [startingBetween]);
    expect(Object.fromEntries(told.replicas.map((r) => [r.id, [r.revision, r.source]]))).toEqual({
      [oldLeft[0] ?? ""]: [1, V1],
      [readyBetween]: [2, V2],
      [startingBetween]: [2, V2],
    });

    // Revision 3 surges; revision 2's replica not ready yet goes at once, its ready one serves on.
    await runOnce(api.deps, api.control);
    const fresh = (await ofRevision(3)).map((r) => r.id);
    expect(fresh).toHaveLength(2);
    const gone = (await stored(model.name)).find((r) => r.id === startingBetween);
    expect(gone).toMatchObject({ state: "stopping", reason: "replaced by revision 3" });
    expect((await ofRevision(2)).map((r) => r.id)).toEqual([readyBetween]);

    // Each of revision 3's replicas ready drains one of the others, revision 2's as revision 1's.
    await beat([...oldLeft, readyBetween, ...fresh]);
    await runOnce(api.deps, api.control);
    expect([...(await ofRevision(1)), ...(await ofRevision(2))]).toEqual([]);
    expect((await view(model.name)).rollout).toMatchObject({
      state: "rolling",
      replicas: { old: 2, new: 2 },
    });
    await drainsOver();
    const drained = (await stored(model.name)).find((r) => r.id === readyBetween);
    expect(drained).toMatchObject({ state: "stopping", reason: "replaced by revision 3; drained" });
    // The agent stops them; the next run finds none of another revision left.
    await beat(fresh);
    await runOnce(api.deps, api.control);

    const done = await view(model.name);
    expect(done).toMatchObject({ revision: 3, source: V3 });
    expect(done.rollout).toMatchObject({ from: 1, to: 3, state: "done", replicas: { old: 0, new: 2 } });
    const audit = await api.deps.store.audit.list({ model: model.name });
    expect(
      audit
        .filter((e) => e.action === "rollout")
        .map((e) => e.after)
        .reverse(),
    ).toEqual([
      expect.objectContaining({ from: 1, to: 2, state: "rolling" }),
      expect.objectContaining({ from: 1, to: 3, state: "rolling" }),
      expect.objectContaining({ from: 1, to: 3, state: "done" }),
    ]);
  });

  it("rolls back to the first rollout's old revision, not the one in between", async () => {
    const agent = await startLoops({ node: { memoryGB: 128 } });
    const model = await gw.model({
      source: V1,
      need: { minMemoryGB: 8 },
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
    });
    const replicas = async () => (await view(model.name)).replicas;
    await until(async () => (await replicas()).filter((r) => r.state === "ready").length === 2, "2 ready");
    // Requests held on every engine: revision 1's replicas cannot finish draining.
    const release = agent.hold();
    const openai = gw.client();
    const held = Array.from({ length: 4 }, () =>
      openai.chat.completions.create({ model: model.name, messages: [{ role: "user", content: "hi" }] }),
    );
    const received = () => agent.started.reduce((n, e) => n + e.received.length, 0);
    await until(() => received() >= 4, "requests held");

    await patchSource(model.name, V2);
    await until(
      async () => (await replicas()).some((r) => r.revision === 2 && r.state === "ready"),
      "v2 ready",
    );
    const second = await patchSource(model.name, V3);
    expect(second.rollout).toMatchObject({ from: 1, to: 3, state: "rolling" });
    await until(
      async () => (await replicas()).some((r) => r.revision === 3 && r.state === "ready"),
      "v3 ready",
    );

    const res = await api.client.models[":name"].rollout.$post({
      param: { name: model.name },
      json: { action: "abort" },
    });
    expect(res.status).toBe(200);
    const aborted = await res.json();
    expect(aborted).toMatchObject({
      revision: 1,
      source: V1,
      rollout: { from: 1, to: 3, state: "rolledBack" },
    });
    release();
    expect((await Promise.all(held)).every((r) => r.choices.length > 0)).toBe(true);
    await until(
      async () => (await replicas()).every((r) => (r.revision ?? 1) === 1),
      "revisions 2 and 3 stopped",
      15_000,
    );
  }, 60_000);
});
