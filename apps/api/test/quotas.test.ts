import { describe, expect, it } from "vitest";
import { beatPlaced, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// GET /quotas and PUT /quotas/:owner (SPEC §2.5).

const api = useApi();

const unlimited = { memoryGB: null, cpuCores: null, gpus: null, replicas: null };

function put(owner: string, limits: Partial<typeof unlimited> | Record<string, unknown>) {
  return api.client.quotas[":owner"].$put({ param: { owner }, json: { ...unlimited, ...limits } });
}

describe("PUT /quotas/:owner", () => {
  it("sets an owner's limits and answers them with the usage", async () => {
    const res = await put("research", { memoryGB: 256, cpuCores: 64, replicas: 20 });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      owner: "research",
      memoryGB: 256,
      cpuCores: 64,
      gpus: null,
      replicas: 20,
      used: { memoryGB: 0, cpuCores: 0, gpus: 0, replicas: 0 },
    });
  });

  it("replaces the limits on a second PUT, audits both and announces each", async () => {
    const before = await api.deps.store.events.latestId();
    await put("research", { memoryGB: 256 });

    await put("research", { memoryGB: 128, gpus: 0 });

    const quotas = await (await api.client.quotas.$get()).json();
    expect(quotas).toEqual([expect.objectContaining({ owner: "research", memoryGB: 128, gpus: 0 })]);
    const audit = await api.deps.store.audit.list();
    expect(audit.map((e) => [e.action, e.target])).toEqual([
      ["quota", "research"],
      ["quota", "research"],
    ]);
    expect(audit[0]).toMatchObject({
      before: expect.objectContaining({ memoryGB: 256 }),
      after: expect.objectContaining({ memoryGB: 128 }),
    });
    const events = await api.deps.store.events.since(before);
    expect(events.map((e) => e.type)).toEqual(["quota.changed", "quota.changed"]);
  });

  it("is a 400 naming each limit that is missing, negative or not a limit", async () => {
    const res = await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: -1, cpuCores: null, gpus: null, disk: 5 } as unknown as typeof unlimited,
    });

    const error = await errorOf(res, 400);
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(["disk", "memoryGB", "replicas"]);
    expect(await api.deps.store.quotas.list()).toEqual([]);
  });
  it("is a 400 naming `owner` for an owner longer than a model's owner may be", async () => {
    const res = await put("o".repeat(65), { memoryGB: 1 });

    expect(Object.keys((await errorOf(res, 400)).fields ?? {})).toEqual(["owner"]);
  });
});

describe("GET /quotas", () => {
  it("is empty when no owner has limits", async () => {
    expect(await (await api.client.quotas.$get()).json()).toEqual([]);
  });

  it("counts the owner's replicas that hold resources, pending ones included, failed ones not", async () => {
    await put("research", { memoryGB: 100 });
    const mine = await (await api.client.models.$post({ json: modelInput({ owner: "research" }) })).json();
    const theirs = await (await api.client.models.$post({ json: modelInput({ owner: "infra" }) })).json();
    await beatPlaced(
      api,
      heartbeat({
        replicas: [
          replicaReport({ model: mine.name, state: "ready" }),
          replicaReport({ model: mine.name, state: "pending" }),
          replicaReport({ model: mine.name, state: "failed" }),
          replicaReport({ model: theirs.name, state: "ready" }),
        ],
      }),
    );

    const [research] = await (await api.client.quotas.$get()).json();

    expect(research?.used).toEqual({ memoryGB: 16, cpuCores: 8, gpus: 0, replicas: 2 });
  });
});
