import type { ModelPatch, Quota } from "@llmgw/domain";
import { describeOnEachDatabase, describeOnPostgres } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { type Api, beatOk, createOk, heartbeat, modelInput, useApi } from "./harness";
import { useTwoServers } from "./multi-kit";

// SPEC §2.5 under concurrency: admission is judged inside the transaction that writes, one change
// per owner at a time (an advisory lock on the owner), so changes arriving together cannot each
// pass a limit that only one of them fits. In one process on PGlite and on PostgreSQL, and across
// two processes sharing one PostgreSQL. The PostgreSQL cases need TEST_DATABASE_URL.

let owners = 0;
const anOwner = () => `team-${process.pid}-${++owners}`;

type QuotaLimits = Omit<Quota, "owner">;
const LIMITS: QuotaLimits = { memoryGB: null, cpuCores: null, gpus: null, replicas: null };

/** The statuses, in order, and the quota each refusal names. */
async function outcomes(answers: readonly { status: number; json(): Promise<unknown> }[]) {
  const statuses = answers.map((r) => r.status).sort((x, y) => x - y);
  const refusals = await Promise.all(
    answers.filter((r) => r.status === 409).map(async (r) => ((await r.json()) as { quota?: unknown }).quota),
  );
  return { statuses, refusals };
}

function inOneProcess(api: Api) {
  const setQuota = async (owner: string, limits: Partial<QuotaLimits>) => {
    const res = await api.client.quotas[":owner"].$put({ param: { owner }, json: { ...LIMITS, ...limits } });
    expect(res.status).toBe(200);
  };
  const patch = (name: string, version: number, json: ModelPatch) =>
    api.client.models[":name"].$patch({ param: { name }, json }, { headers: { "If-Match": `"${version}"` } });
  // Connections opened ahead: on PostgreSQL the first request would otherwise run its whole
  // transaction on the one idle connection while the others still connect, and never overlap them.
  const overlapping = async <T>(requests: readonly (() => Promise<T>)[]): Promise<T[]> => {
    await Promise.all(requests.map(() => api.deps.store.transaction((tx) => tx.sql.query("select 1"))));
    return Promise.all(requests.map((request) => request()));
  };
  const owned = async (owner: string) =>
    (await api.deps.store.models.list()).filter((m) => m.owner === owner).map((m) => m.name);

  it("admits exactly one of 10 concurrent creates for an owner with a quota of 1 replica", async () => {
    const owner = anOwner();
    await setQuota(owner, { replicas: 1 });

    const answers = await overlapping(
      Array.from({ length: 10 }, () => () => api.client.models.$post({ json: modelInput({ owner }) })),
    );

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    for (const quota of refusals) {
      expect(quota).toEqual({ owner, dimension: "replicas", used: 1, asked: 1, limit: 1 });
    }
    expect(await owned(owner)).toHaveLength(1);
  });

  it("passes one of two concurrent PATCHes raising replicas on two models of one owner", async () => {
    const owner = anOwner();
    const [a, b] = [await createOk(api, modelInput({ owner })), await createOk(api, modelInput({ owner }))];
    await setQuota(owner, { replicas: 3 });

    const answers = await overlapping(
      [a, b].map((m) => () => patch(m.name, m.version, { mode: "always", replicas: 2 })),
    );

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([200, 409]);
    expect(refusals).toEqual([{ owner, dimension: "replicas", used: 3, asked: 1, limit: 3 }]);
    const replicas = (await api.deps.store.models.list())
      .filter((m) => m.owner === owner)
      .map((m) => m.scaling.max)
      .sort();
    expect(replicas).toEqual([1, 2]);
  });

  it("passes one of two concurrent PATCHes raising the per-replica memory of one owner's models", async () => {
    const owner = anOwner();
    const [a, b] = [await createOk(api, modelInput({ owner })), await createOk(api, modelInput({ owner }))];
    await setQuota(owner, { memoryGB: 24 });

    const answers = await overlapping([a, b].map((m) => () => patch(m.name, m.version, { memoryGB: 16 })));

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([200, 409]);
    expect(refusals).toEqual([{ owner, dimension: "memoryGB", used: 24, asked: 8, limit: 24 }]);
  });

  it("charges a model moving to another owner to the new owner, one of two at a time", async () => {
    const [from, to] = [anOwner(), anOwner()];
    const [a, b] = [
      await createOk(api, modelInput({ owner: from })),
      await createOk(api, modelInput({ owner: from })),
    ];
    await setQuota(to, { replicas: 1 });

    const answers = await overlapping([a, b].map((m) => () => patch(m.name, m.version, { owner: to })));

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([200, 409]);
    expect(refusals).toEqual([{ owner: to, dimension: "replicas", used: 1, asked: 1, limit: 1 }]);
    expect(await owned(to)).toHaveLength(1);
  });

  it("applies one of two concurrent targets that each fit the fleet but not both the quota", async () => {
    const owner = anOwner();
    await beatOk(api, heartbeat({ node: { memoryGB: 256, cpuCount: 64 } }));
    const [a, b] = [await createOk(api, modelInput({ owner })), await createOk(api, modelInput({ owner }))];
    await setQuota(owner, { replicas: 3 });

    const answers = await overlapping(
      [a, b].map(
        (m) => () =>
          api.client.models[":name"].target.$post({ param: { name: m.name }, json: { replicas: 2 } }),
      ),
    );

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([200, 409]);
    expect(refusals).toEqual([{ owner, dimension: "replicas", used: 3, asked: 1, limit: 3 }]);
  });
}

describeOnEachDatabase("quota admission under concurrency, in one process on $name", ({ kind }) => {
  inOneProcess(useApi({ database: kind }));
});

describeOnPostgres("quota admission across two processes on one PostgreSQL", () => {
  const { servers } = useTwoServers();

  const call = (url: string, method: string, path: string, body: unknown, headers = {}) =>
    fetch(`${url}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const both = () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    return [a.url, b.url] as const;
  };

  it("admits exactly one of 10 concurrent creates split across both, for a quota of 1 replica", async () => {
    const [a, b] = both();
    const owner = anOwner();
    expect((await call(a, "PUT", `/quotas/${owner}`, { ...LIMITS, replicas: 1 })).status).toBe(200);

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(i % 2 === 0 ? a : b, "POST", "/models", modelInput({ owner })),
      ),
    );

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    for (const quota of refusals) {
      expect(quota).toEqual({ owner, dimension: "replicas", used: 1, asked: 1, limit: 1 });
    }
    const models = (await (await fetch(`${b}/api/v1/models`)).json()) as { owner: string }[];
    expect(models.filter((m) => m.owner === owner)).toHaveLength(1);
  });

  it("passes one of two concurrent PATCHes, one through each, raising replicas on one owner's models", async () => {
    const [a, b] = both();
    const owner = anOwner();
    const created = await Promise.all(
      [a, b].map(async (url) => {
        const res = await call(url, "POST", "/models", modelInput({ owner }));
        expect(res.status).toBe(201);
        return (await res.json()) as { name: string; version: number };
      }),
    );
    expect((await call(a, "PUT", `/quotas/${owner}`, { ...LIMITS, replicas: 3 })).status).toBe(200);

    const answers = await Promise.all(
      created.map((m, i) =>
        call(
          i === 0 ? a : b,
          "PATCH",
          `/models/${m.name}`,
          { mode: "always", replicas: 2 },
          {
            "if-match": `"${m.version}"`,
          },
        ),
      ),
    );

    const { statuses, refusals } = await outcomes(answers);
    expect(statuses).toEqual([200, 409]);
    expect(refusals).toEqual([{ owner, dimension: "replicas", used: 3, asked: 1, limit: 3 }]);
  });
});
