import { conflictBodySchema, type ModelInput, type ModelPatch } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// PATCH /api/v1/models/:name (SPEC §2.7): only what changed, one audit entry and one event per
// changed field, guarded by If-Match.

const api = useApi();

const create = (input?: ModelInput) => createOk(api, input);

function patch(name: string, body: ModelPatch, ifMatch?: string) {
  return api.client.models[":name"].$patch(
    { param: { name }, json: body },
    { headers: ifMatch === undefined ? {} : { "If-Match": ifMatch } },
  );
}

describe("PATCH /models/:name", () => {
  it("applies a change of class and memory as two audited fields and one new version", async () => {
    const model = await create(modelInput({ class: "standard", need: { minMemoryGB: 8 } }));
    const eventsBefore = await api.deps.store.events.latestId();

    const res = await patch(model.name, { class: "critical", memoryGB: 12 }, '"1"');

    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe('"2"');
    const view = await res.json();
    expect(view).toMatchObject({ version: 2, class: "critical", updatedBy: "local" });
    expect(view.profiles[0]?.minMemoryGB).toBe(12);
    expect(view.headroom.need.memoryGB).toBe(12);
    const updates = (await api.deps.store.audit.list({ model: model.name })).filter(
      (e) => e.action === "update",
    );
    expect(updates.map((e) => [e.field, e.before, e.after]).sort()).toEqual([
      ["class", "standard", "critical"],
      ["memoryGB", 8, 12],
    ]);
    expect(updates.map((e) => e.version)).toEqual([2, 2]);
    const events = await api.deps.store.events.since(eventsBefore);
    expect(events.map((e) => e.type)).toEqual(["model.changed", "model.changed"]);
  });

  it("accepts the ETag weak or bare as well as quoted", async () => {
    const model = await create();

    const weak = await patch(model.name, { description: "weak" }, 'W/"1"');
    const bare = await patch(model.name, { description: "bare" }, "2");

    expect(weak.status).toBe(200);
    expect(bare.status).toBe(200);
    expect((await bare.json()).version).toBe(3);
  });

  it("bumps no version and writes no audit or event for a patch that changes nothing", async () => {
    const model = await create(modelInput({ class: "batch", description: "as it is" }));
    const auditBefore = await api.deps.store.audit.list({ model: model.name });
    const eventsBefore = await api.deps.store.events.latestId();

    const res = await patch(model.name, { class: "batch", description: "as it is", mode: "always" }, '"1"');

    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe('"1"');
    expect((await res.json()).version).toBe(1);
    expect(await api.deps.store.audit.list({ model: model.name })).toEqual(auditBefore);
    expect(await api.deps.store.events.latestId()).toBe(eventsBefore);
  });

  it("sets the run mode through the run-mode rule", async () => {
    const model = await create(modelInput({ scaling: { min: 1, max: 1 } }));

    const res = await patch(model.name, { mode: "ondemand", replicas: 3 }, '"1"');

    expect((await res.json()).scaling).toEqual({ min: 0, max: 3, idleTimeoutSeconds: 900 });
  });

  it("is a 428 without If-Match, and changes nothing", async () => {
    const model = await create();

    const res = await patch(model.name, { description: "no precondition" });

    expect((await errorOf(res, 428)).code).toBe("precondition_required");
    expect((await api.deps.store.models.get(model.name))?.version).toBe(1);
  });

  it("is a 400 for an If-Match that is not a version", async () => {
    const model = await create();

    const res = await patch(model.name, { description: "x" }, '"abc"');

    expect((await errorOf(res, 400)).message).toContain("If-Match");
  });

  it("is a 412 with the current model when the version is stale, and changes nothing", async () => {
    const model = await create();
    expect((await patch(model.name, { description: "someone else's edit" }, '"1"')).status).toBe(200);

    const res = await patch(model.name, { owner: "research" }, '"1"');

    const body: unknown = await res.clone().json();
    // SPEC §2.7: the current model and its ETag, so the client can re-apply against it.
    expect(res.headers.get("etag")).toBe('"2"');
    const error = await errorOf(res, 412);
    expect(error.code).toBe("precondition_failed");
    expect(error.message).toContain("you had version 1, it is now 2");
    const conflict = conflictBodySchema.parse(body);
    expect(conflict.current).toMatchObject({
      name: model.name,
      version: 2,
      description: "someone else's edit",
    });
    expect((await api.deps.store.models.get(model.name))?.owner).toBe("");
  });

  it("lists in a 412 the audit entries since the client's version (changedSince)", async () => {
    const model = await create();
    expect((await patch(model.name, { description: "someone else's edit" }, '"1"')).status).toBe(200);

    const res = await patch(model.name, { owner: "research" }, '"1"');

    const conflict = conflictBodySchema.parse(await res.json());
    expect(conflict.changedSince).toEqual([
      expect.objectContaining({ field: "description", before: "", after: "someone else's edit", version: 2 }),
    ]);
  });

  it("lets exactly one of concurrent patches from one version through; the others are 412", async () => {
    const model = await create();

    const answers = await Promise.all(
      ["a", "b", "c"].map((description) => patch(model.name, { description }, '"1"')),
    );

    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    expect((await api.deps.store.models.get(model.name))?.version).toBe(2);
  });

  it("is a 400 naming a field that is not one of the card's", async () => {
    const model = await create();

    const res = await patch(model.name, { name: "renamed", origin: "x" } as ModelPatch, '"1"');

    expect((await errorOf(res, 400)).fields).toEqual({
      name: "not a field of this request",
      origin: "not a field of this request",
    });
  });

  it("is a 400 naming the field for values out of range", async () => {
    const model = await create();

    const res = await patch(model.name, { memoryGB: -1, contextLength: 0 }, '"1"');

    expect(Object.keys((await errorOf(res, 400)).fields ?? {}).sort()).toEqual(["contextLength", "memoryGB"]);
  });

  it("is a 400 naming `profile` for a profile the model does not have", async () => {
    const model = await create();

    const res = await patch(model.name, { profile: "gpu", memoryGB: 4 }, '"1"');

    expect(Object.keys((await errorOf(res, 400)).fields ?? {})).toEqual(["profile"]);
  });

  it("is a 400 naming `replicas` for a stopped model asked to run some", async () => {
    const model = await create();

    const res = await patch(model.name, { mode: "stopped", replicas: 2 }, '"1"');

    expect(Object.keys((await errorOf(res, 400)).fields ?? {})).toEqual(["replicas"]);
  });

  it("is a 400 naming `class` for an unknown class", async () => {
    const model = await create();

    const res = await patch(model.name, { class: "platinum" }, '"1"');

    expect(Object.keys((await errorOf(res, 400)).fields ?? {})).toEqual(["class"]);
  });

  it("is a 409 name_taken for an alias another model holds", async () => {
    const other = await create();
    const model = await create();

    const res = await patch(model.name, { aliases: ["fine-alias", other.name] }, '"1"');

    const error = await errorOf(res, 409);
    expect(error.code).toBe("name_taken");
    expect(Object.keys(error.fields ?? {})).toEqual(["aliases.1"]);
    expect((await api.deps.store.models.get(model.name))?.aliases).toEqual([]);
  });

  it("is a 409 quota_exceeded for raising replicas past the owner's quota, charging only the increase", async () => {
    const put = await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: null, cpuCores: null, gpus: null, replicas: 3 },
    });
    expect(put.status).toBe(200);
    const model = await create(modelInput({ owner: "research", scaling: { min: 1, max: 1 } }));
    await beatPlaced(api, heartbeat({ replicas: [replicaReport({ model: model.name })] }));

    const over = await patch(model.name, { replicas: 5 }, '"1"');
    const fits = await patch(model.name, { replicas: 3 }, '"1"');

    const body: unknown = await over.clone().json();
    expect((await errorOf(over, 409)).code).toBe("quota_exceeded");
    expect(body).toMatchObject({ quota: { dimension: "replicas", used: 1, asked: 4, limit: 3 } });
    expect(fits.status).toBe(200);
  });

  it("is a 404 for a model the catalogue does not have", async () => {
    const res = await patch("no-such-model", { description: "x" }, '"1"');

    expect((await errorOf(res, 404)).code).toBe("not_found");
  });
});
