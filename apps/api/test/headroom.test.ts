import { type ModelInput, targetRefusedBodySchema } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// SPEC §2.4 over a fleet built through heartbeats, and `POST /models/:name/target`.

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

async function beat(body: ReturnType<typeof heartbeat>) {
  await beatPlaced(api, body);
  return body.node.name;
}

/**
 * Two nodes and a small one. `big` (64 GB, 16 cores) runs a batch replica of 16 GB / 8 cores;
 * `mid` (32 GB, 8 cores) runs a critical replica of 8 GB / 4 cores; `small` has 4 GB. The model
 * asked about is standard, 8 GB / 4 cores: 2 fit on big's free share and 1 on mid's; evicting the
 * batch replica makes room for 2 more on big; nothing on mid is outranked.
 */
async function smallFleet(model: Parameters<typeof modelInput>[0] = {}) {
  const batch = await create(modelInput({ class: "batch", need: { minMemoryGB: 16, cpuCores: 8 } }));
  const critical = await create(modelInput({ class: "critical", need: { minMemoryGB: 8, cpuCores: 4 } }));
  const asked = await create(
    modelInput({ class: "standard", need: { minMemoryGB: 8, cpuCores: 4 }, ...model }),
  );
  const batchReplica = replicaReport({ model: batch.name });
  const big = await beat(heartbeat({ node: { memoryGB: 64, cpuCount: 16 }, replicas: [batchReplica] }));
  const mid = await beat(
    heartbeat({ node: { memoryGB: 32, cpuCount: 8 }, replicas: [replicaReport({ model: critical.name })] }),
  );
  const small = await beat(heartbeat({ node: { memoryGB: 4, cpuCount: 4 } }));
  return { asked, batch, batchReplica, nodes: { big, mid, small } };
}

function headroomOf(name: string) {
  return api.client.models[":name"].headroom.$get({ param: { name } });
}

function target(name: string, replicas: number, dryRun?: boolean) {
  return api.client.models[":name"].target.$post({
    param: { name },
    json: dryRun === undefined ? { replicas } : { replicas, dryRun },
  });
}

describe("GET /models/:name/headroom", () => {
  it("counts free places, places by preempting lower classes, and says why a node holds none", async () => {
    const { asked, nodes } = await smallFleet();

    const res = await headroomOf(asked.name);

    expect(res.status).toBe(200);
    const room = await res.json();
    expect(room).toMatchObject({
      model: asked.name,
      need: { memoryGB: 8, cpuCores: 4, gpus: 0 },
      current: 0,
      free: 3,
      byPreemption: 2,
      quotaRemaining: null,
      total: 5,
      limitedBy: "capacity",
      victimsByClass: { batch: 1 },
    });
    expect(room.nodes).toEqual(
      expect.arrayContaining([
        { node: nodes.big, fitFree: 2, fitPreempt: 4, reason: null },
        { node: nodes.mid, fitFree: 1, fitPreempt: 1, reason: null },
        { node: nodes.small, fitFree: 0, fitPreempt: 0, reason: "needs 8 GB, has 4 GB free of 4" },
      ]),
    );
  });

  it("is limited by the owner's quota when that allows fewer", async () => {
    const { asked } = await smallFleet({ owner: "research" });
    await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: 16, cpuCores: null, gpus: null, replicas: null },
    });

    const room = await (await headroomOf(asked.name)).json();

    expect(room).toMatchObject({ free: 3, byPreemption: 2, quotaRemaining: 2, total: 2, limitedBy: "quota" });
    expect(room.victimsByClass).toEqual({});
  });

  it("counts nothing for a model that asks for nothing", async () => {
    const { asked } = await smallFleet({ need: { minMemoryGB: 0, cpuCores: 0, gpus: 0 } });

    const room = await (await headroomOf(asked.name)).json();

    expect(room).toMatchObject({ free: null, byPreemption: null, total: null, limitedBy: "unknown-need" });
  });

  it("counts the model's own ready replicas as current, and its starting ones apart", async () => {
    const asked = await create(modelInput());
    await beat(
      heartbeat({
        replicas: [
          replicaReport({ model: asked.name, state: "ready" }),
          replicaReport({ model: asked.name, state: "starting" }),
        ],
      }),
    );

    expect(await (await headroomOf(asked.name)).json()).toMatchObject({
      current: 1,
      starting: 1,
      elsewhere: 0,
    });
  });

  it("is a 404 for a model the catalogue does not have", async () => {
    expect((await errorOf(await headroomOf("no-such-model"), 404)).code).toBe("not_found");
  });
});

describe("GET /headroom", () => {
  it("answers every model's headroom", async () => {
    const { asked, batch } = await smallFleet();

    const all = await (await api.client.headroom.$get()).json();

    expect(all.map((h) => h.model)).toEqual(expect.arrayContaining([asked.name, batch.name]));
    expect(all.find((h) => h.model === asked.name)?.total).toBe(5);
  });
});

describe("POST /models/:name/target", () => {
  it("says a target that fits on free capacity fits, and applies nothing on a dry run", async () => {
    const { asked } = await smallFleet();

    const res = await target(asked.name, 3, true);

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      model: asked.name,
      replicas: 3,
      outcome: "fits",
      victims: [],
      largestFit: 5,
      applied: false,
    });
    expect((await api.deps.store.models.get(asked.name))?.version).toBe(1);
  });

  it("lists the victims of a target that needs preemption", async () => {
    const { asked, batch, batchReplica, nodes } = await smallFleet();

    const result = await (await target(asked.name, 5, true)).json();

    expect(result).toMatchObject({ outcome: "preempts", largestFit: 5, applied: false });
    expect(result.victims).toEqual([
      { replica: batchReplica.id, model: batch.name, node: nodes.big, class: "batch" },
    ]);
    expect(result.message).toBe("5 fits by preempting 1 replica");
  });

  it("refuses a target past the fleet's room, naming the largest that fits", async () => {
    const { asked } = await smallFleet();

    const result = await (await target(asked.name, 9, true)).json();

    expect(result).toMatchObject({ outcome: "refused", largestFit: 5, applied: false, victims: [] });
    expect(result.message).toContain("the largest target that fits is 5");
  });

  it("refuses a target past the quota, saying so", async () => {
    const { asked } = await smallFleet({ owner: "research" });
    await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: null, cpuCores: null, gpus: null, replicas: 1 },
    });

    const result = await (await target(asked.name, 2, true)).json();

    expect(result).toMatchObject({ outcome: "refused", largestFit: 1 });
    expect(result.message).toContain("the quota of research allows 1 more");
  });

  it("applies a target that fits when it is not a dry run: always, that many replicas", async () => {
    const { asked } = await smallFleet({ scaling: { min: 0, max: 0 } });

    const res = await target(asked.name, 3);

    expect(await res.json()).toMatchObject({ outcome: "fits", applied: true });
    const stored = await api.deps.store.models.get(asked.name);
    expect(stored).toMatchObject({ version: 2, scaling: { min: 3, max: 3 } });
    const fields = (await api.deps.store.audit.list({ model: asked.name }))
      .filter((e) => e.action === "update")
      .map((e) => e.field);
    expect(fields.sort()).toEqual(["mode", "replicas"]);
  });

  it("stops the model for a target of 0", async () => {
    const { asked } = await smallFleet({ scaling: { min: 2, max: 2 } });

    const result = await (await target(asked.name, 0)).json();

    expect(result).toMatchObject({ outcome: "fits", applied: true });
    expect(await api.deps.store.models.get(asked.name)).toMatchObject({ scaling: { min: 0, max: 0 } });
  });

  it("refuses a real target that does not fit with 409 target_refused, the dry run's fields beside the error, applying nothing", async () => {
    const { asked } = await smallFleet();
    const dryRun = await (await target(asked.name, 9, true)).json();

    const res = await target(asked.name, 9);

    expect(res.status).toBe(409);
    const body = targetRefusedBodySchema.parse(await res.json());
    expect(body.error).toEqual({ code: "target_refused", message: dryRun.message });
    const { error: _error, ...fields } = body;
    expect(fields).toEqual(dryRun);
    expect(fields).toMatchObject({ outcome: "refused", applied: false, largestFit: 5 });
    expect((await api.deps.store.models.get(asked.name))?.version).toBe(1);
  });

  it("is a 400 naming `replicas` for a negative count, and a 404 for an unknown model", async () => {
    const asked = await create(modelInput());

    const bad = await target(asked.name, -1, true);
    const unknown = await target("no-such-model", 1, true);

    expect(Object.keys((await errorOf(bad, 400)).fields ?? {})).toEqual(["replicas"]);
    expect((await errorOf(unknown, 404)).code).toBe("not_found");
  });
});
