import type { ModelPatch } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// SPEC §11.1: revisions, and PATCH taking source and args (a change of either starts a rollout).

const api = useApi({
  yaml: `models:
  - name: declared
    source: http://mirror.test/declared/v1/m.gguf
    contextLength: 4096
    scaling: { min: 0, max: 0 }
    profiles: [{ name: cpu, engine: llamacpp }]
`,
});

function patch(name: string, body: ModelPatch, ifMatch: string) {
  return api.client.models[":name"].$patch(
    { param: { name }, json: body },
    { headers: { "If-Match": ifMatch } },
  );
}

describe("revisions", () => {
  it("starts at 1 on a model, its replicas and the heartbeat's desired replicas", async () => {
    const model = await createOk(api, modelInput({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } }));
    expect(model.revision).toBe(1);
    expect(model.rollout).toBeNull();
    const reply = await beatPlaced(api, heartbeat({ replicas: [replicaReport({ model: model.name })] }));
    expect(reply.replicas.map((r) => r.revision)).toEqual([1]);
    const fleet = await (await api.client.fleet.replicas.$get()).json();
    expect(fleet.map((r) => r.revision ?? 1)).toEqual([1]);
  });

  it("bumps the revision and starts a rollout on a new source, audited and announced", async () => {
    const model = await createOk(api, modelInput());
    const before = await api.deps.store.events.latestId();
    const source = "http://mirror.test/m/v2/m.gguf";

    const res = await patch(model.name, { source }, '"1"');

    expect(res.status).toBe(200);
    const view = await res.json();
    expect(view).toMatchObject({ version: 2, revision: 2, source });
    expect(view.rollout).toMatchObject({ from: 1, to: 2, state: "rolling", canaryPercent: null });
    expect(view.rollout?.previous.source).toBe(model.source);
    const audit = await api.deps.store.audit.list({ model: model.name });
    expect(audit.map((e) => [e.action, e.field])).toEqual(
      expect.arrayContaining([
        ["update", "source"],
        ["rollout", "state"],
      ]),
    );
    const events = await api.deps.store.events.since(before);
    expect(events.map((e) => e.type)).toEqual(["model.changed", "model.rollout"]);
  });

  it("bumps it on new args of the named profile, and not on other edits", async () => {
    const model = await createOk(api, modelInput());
    const profile = model.profiles[0]?.name ?? "";

    const args = await (await patch(model.name, { profile, args: ["--ctx-size", "2048"] }, '"1"')).json();
    expect(args).toMatchObject({ version: 2, revision: 2 });
    expect(args.profiles[0]?.args).toEqual(["--ctx-size", "2048"]);

    const described = await (await patch(model.name, { description: "only words" }, '"2"')).json();
    expect(described).toMatchObject({ version: 3, revision: 2 });
  });

  it("takes a canary share with the change, and refuses one without a change", async () => {
    const model = await createOk(api, modelInput());
    const alone = await patch(model.name, { rollout: { canaryPercent: 10 } }, '"1"');
    expect((await errorOf(alone, 400)).fields).toHaveProperty("rollout");
    const out = await patch(
      model.name,
      { rollout: { canaryPercent: 100 }, source: "http://m.test/x" },
      '"1"',
    );
    expect((await errorOf(out, 400)).fields).toHaveProperty("rollout.canaryPercent");

    const res = await patch(
      model.name,
      { source: "http://m.test/v2", rollout: { canaryPercent: 20 } },
      '"1"',
    );
    expect((await res.json()).rollout).toMatchObject({ state: "canary", canaryPercent: 20 });
  });

  it("refuses a source that is not an http(s) URL, and control characters, naming the field", async () => {
    const model = await createOk(api, modelInput());
    for (const source of ["/etc/passwd", "file:///m.gguf", "http://m.test/a\u0007b"]) {
      const res = await patch(model.name, { source }, '"1"');
      expect((await errorOf(res, 400)).fields).toHaveProperty("source");
    }
    const res = await patch(model.name, { args: ["--ctx-size\n"] }, '"1"');
    expect(Object.keys((await errorOf(res, 400)).fields ?? {}).join()).toMatch(/^args/);
    const stored = await api.deps.store.models.get(model.name);
    expect(stored).toMatchObject({ version: 1, source: model.source });
  });

  it("refuses args no node would run before anything starts, naming args (PATCH and POST)", async () => {
    const model = await createOk(api, modelInput());
    const before = await api.deps.store.events.latestId();
    for (const args of [
      ["--port", "80"],
      ["--ctx-size", "/etc/shadow"],
      ["--log-file", "x"],
    ]) {
      const error = await errorOf(await patch(model.name, { args }, '"1"'), 400);
      expect(error.fields).toHaveProperty("args");
      expect(error.fields?.args).toContain(`refused arg "${args[0] === "--ctx-size" ? args[1] : args[0]}"`);
    }
    const stored = await api.deps.store.models.get(model.name);
    expect(stored).toMatchObject({ version: 1, profiles: model.profiles });
    expect(stored?.rollout ?? null).toBeNull();
    expect(await api.deps.store.events.since(before)).toEqual([]);

    const input = modelInput({ need: { engine: "llamacpp", args: ["--host", "0.0.0.0"] } });
    const created = await api.client.models.$post({ json: input });
    expect((await errorOf(created, 400)).fields?.["profiles.0.args"]).toContain(
      '"--host": the agent sets it',
    );
    expect(await api.deps.store.models.get(input.name)).toBeNull();
  });

  it("refuses a rollout of a declared model", async () => {
    const res = await patch("declared", { source: "http://mirror.test/declared/v2/m.gguf" }, '"1"');
    expect((await errorOf(res, 409)).code).toBe("declared_in_config");
  });
});
