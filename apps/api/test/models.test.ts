import type { ModelInput } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

async function setQuota(
  owner: string,
  limits: Partial<Record<"memoryGB" | "cpuCores" | "gpus" | "replicas", number>>,
) {
  const res = await api.client.quotas[":owner"].$put({
    param: { owner },
    json: { memoryGB: null, cpuCores: null, gpus: null, replicas: null, ...limits },
  });
  expect(res.status).toBe(200);
}

describe("GET /models", () => {
  it("is empty on an empty catalogue", async () => {
    const res = await api.client.models.$get();

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it("lists every model with its mode, replicas, headroom and quota line", async () => {
    const a = await create(modelInput({ owner: "research" }));
    const b = await create(modelInput({ scaling: { min: 0, max: 2 } }));

    const models = await (await api.client.models.$get()).json();

    expect(models.map((m) => m.name).sort()).toEqual([a.name, b.name].sort());
    expect(models.find((m) => m.name === a.name)).toMatchObject({
      mode: "always",
      replicas: [],
      headroom: { model: a.name, need: { memoryGB: 8, cpuCores: 4, gpus: 0 }, limitedBy: "capacity" },
      quota: { owner: "research", remaining: null },
    });
    expect(models.find((m) => m.name === b.name)?.mode).toBe("ondemand");
  });
});

describe("GET /models/:name", () => {
  it("answers one model with its version as the ETag", async () => {
    const created = await create();

    const res = await api.client.models[":name"].$get({ param: { name: created.name } });

    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe('"1"');
    expect(await res.json()).toEqual(created);
  });

  it("is a 404 for a model the catalogue does not have", async () => {
    const res = await api.client.models[":name"].$get({ param: { name: "no-such-model" } });

    expect((await errorOf(res, 404)).code).toBe("not_found");
  });
});

describe("POST /models", () => {
  it("adds a runtime model at version 1, with defaults for what was left out, and audits it", async () => {
    const { name, source, contextLength, scaling, profiles } = modelInput();

    const res = await api.client.models.$post({ json: { name, source, contextLength, scaling, profiles } });

    expect(res.status).toBe(201);
    expect(res.headers.get("etag")).toBe('"1"');
    expect(res.headers.get("location")).toBe(`/api/v1/models/${name}`);
    expect(await res.json()).toMatchObject({
      name,
      origin: "runtime",
      version: 1,
      updatedBy: "local",
      class: "standard",
      owner: "",
      aliases: [],
      routingProfile: "chat",
      maxOutput: null,
      description: "",
    });
    const audit = await api.deps.store.audit.list({ model: name });
    expect(audit).toEqual([expect.objectContaining({ action: "create", target: name, by: "local" })]);
  });

  it("announces the new model on the event stream", async () => {
    const before = await api.deps.store.events.latestId();

    const created = await create();

    const events = await api.deps.store.events.since(before);
    expect(events).toEqual([
      expect.objectContaining({
        type: "model.changed",
        data: expect.objectContaining({ name: created.name }),
      }),
    ]);
  });

  it("is a 400 naming every field that is wrong by its path", async () => {
    const input = modelInput({ contextLength: 0 });
    const profiles = [{ name: "cpu", engine: "llamacpp", minMemoryGB: -8 }];

    const res = await api.client.models.$post({ json: { ...input, profiles } });

    const error = await errorOf(res, 400);
    expect(error.code).toBe("bad_request");
    expect(Object.keys(error.fields ?? {}).sort()).toEqual(["contextLength", "profiles.0.minMemoryGB"]);
    expect(error.message).toContain("contextLength");
  });

  it("is a 400 for a field that is not part of the request", async () => {
    const res = await api.client.models.$post({ json: { ...modelInput(), version: 7 } as ModelInput });

    expect((await errorOf(res, 400)).fields).toEqual({ version: "not a field of this request" });
  });

  it("is a 400 naming `class` for a class the fleet does not have", async () => {
    const res = await api.client.models.$post({ json: modelInput({ class: "platinum" }) });

    expect((await errorOf(res, 400)).fields?.class).toContain("critical, standard, batch");
  });

  it("is a 409 name_taken when the name is taken", async () => {
    const first = await create();

    const res = await api.client.models.$post({ json: modelInput({ name: first.name }) });

    const error = await errorOf(res, 409);
    expect(error.code).toBe("name_taken");
    expect(Object.keys(error.fields ?? {})).toEqual(["name"]);
  });

  it("is a 409 name_taken when the name is another model's alias, or an alias is another's name", async () => {
    const first = await create(modelInput({ aliases: ["llama-latest"] }));

    const asName = await api.client.models.$post({ json: modelInput({ name: "llama-latest" }) });
    const asAlias = await api.client.models.$post({ json: modelInput({ aliases: ["x-other", first.name] }) });

    expect((await errorOf(asName, 409)).code).toBe("name_taken");
    const error = await errorOf(asAlias, 409);
    expect(error.code).toBe("name_taken");
    expect(Object.keys(error.fields ?? {})).toEqual(["aliases.1"]);
    expect(await api.deps.store.models.list()).toHaveLength(1);
  });

  it("lets exactly one of concurrent creates of one name through", async () => {
    const input = modelInput();

    const answers = await Promise.all([1, 2, 3].map(() => api.client.models.$post({ json: input })));

    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it("is a 409 quota_exceeded naming the owner, dimension, used, asked and limit", async () => {
    await setQuota("research", { memoryGB: 20 });
    const running = await create(modelInput({ owner: "research", need: { minMemoryGB: 8 } }));
    await beatPlaced(api, heartbeat({ replicas: [replicaReport({ model: running.name })] }));

    const res = await api.client.models.$post({
      json: modelInput({ owner: "research", need: { minMemoryGB: 8 }, scaling: { min: 2, max: 2 } }),
    });

    const body: unknown = await res.clone().json();
    const error = await errorOf(res, 409);
    expect(error.code).toBe("quota_exceeded");
    expect(error.message).toContain("research");
    expect(body).toMatchObject({
      quota: { owner: "research", dimension: "memoryGB", used: 8, asked: 16, limit: 20 },
    });
    expect((await api.deps.store.models.list()).map((m) => m.name)).toEqual([running.name]);
  });

  it("admits a model of another owner whatever research's quota says", async () => {
    await setQuota("research", { replicas: 0 });

    const res = await api.client.models.$post({ json: modelInput({ owner: "infra" }) });

    expect(res.status).toBe(201);
  });
});

describe("DELETE /models/:name", () => {
  it("removes a runtime model, audits and announces it", async () => {
    const created = await create();
    const before = await api.deps.store.events.latestId();

    const res = await api.client.models[":name"].$delete({ param: { name: created.name } });

    expect(res.status).toBe(204);
    const gone = await api.client.models[":name"].$get({ param: { name: created.name } });
    expect(gone.status).toBe(404);
    const [latest] = await api.deps.store.audit.list({ model: created.name });
    expect(latest).toMatchObject({
      action: "delete",
      before: expect.objectContaining({ name: created.name }),
    });
    expect(await api.deps.store.events.since(before)).toEqual([
      expect.objectContaining({ type: "model.removed", data: { name: created.name } }),
    ]);
  });

  it("frees the name and the aliases for a new model", async () => {
    const created = await create(modelInput({ aliases: ["freed-alias"] }));
    await api.client.models[":name"].$delete({ param: { name: created.name } });

    const res = await api.client.models.$post({ json: modelInput({ name: "freed-alias" }) });

    expect(res.status).toBe(201);
  });

  it("is a 404 for a model the catalogue does not have", async () => {
    const res = await api.client.models[":name"].$delete({ param: { name: "no-such-model" } });

    expect((await errorOf(res, 404)).code).toBe("not_found");
  });
});

describe("POST /models/:name/wake", () => {
  it("wakes an on-demand model", async () => {
    const created = await create(modelInput({ scaling: { min: 0, max: 1 } }));

    const res = await api.client.models[":name"].wake.$post({ param: { name: created.name } });

    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ model: created.name });
    expect(api.control.wakes.has(created.name)).toBe(true);
  });

  it("is a 409 for a model that is not on demand, and a 404 for an unknown one", async () => {
    const always = await create();

    const conflict = await api.client.models[":name"].wake.$post({ param: { name: always.name } });
    const unknown = await api.client.models[":name"].wake.$post({ param: { name: "no-such-model" } });

    expect((await errorOf(conflict, 409)).message).toContain("not an on-demand model");
    expect((await errorOf(unknown, 404)).code).toBe("not_found");
  });
});
