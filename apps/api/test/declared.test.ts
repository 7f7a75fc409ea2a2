import { join } from "node:path";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { errorOf, heartbeat, modelInput, useApi } from "./harness";

// A server started with a llmgw.yaml (SPEC §4): its models are read-only through the API, its
// classes and quotas are starting values.

const declared = modelInput({ aliases: ["declared-alias"], class: "critical", owner: "research" });
const api = useApi({
  yaml: stringify({
    heartbeatSeconds: 7,
    classes: [
      { name: "critical", rank: 300 },
      { name: "standard", rank: 200 },
      { name: "batch", rank: 100 },
      { name: "scavenger", rank: 10, description: "whatever is left" },
    ],
    quotas: [{ owner: "research", memoryGB: 256, cpuCores: 64, gpus: null, replicas: 20 }],
    models: [declared],
  }),
});

describe("a model declared in the configuration file", () => {
  it("is in the catalogue with origin config", async () => {
    const res = await api.client.models[":name"].$get({ param: { name: declared.name } });

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: declared.name,
      origin: "config",
      version: 1,
      updatedBy: "config",
      class: "critical",
    });
  });

  it("is refused a PATCH with 409 declared_in_config, saying to edit the configuration", async () => {
    const res = await api.client.models[":name"].$patch(
      { param: { name: declared.name }, json: { description: "edited" } },
      { headers: { "If-Match": '"1"' } },
    );

    const error = await errorOf(res, 409);
    expect(error.code).toBe("declared_in_config");
    expect(error.message).toContain("configuration");
    expect((await api.deps.store.models.get(declared.name))?.description).toBe(declared.description);
  });

  it("is refused a DELETE with 409 declared_in_config", async () => {
    const res = await api.client.models[":name"].$delete({ param: { name: declared.name } });

    expect((await errorOf(res, 409)).code).toBe("declared_in_config");
    expect(await api.deps.store.models.get(declared.name)).not.toBeNull();
  });

  it("may be asked a dry-run target, but a target that would apply is refused", async () => {
    const target = (dryRun: boolean) =>
      api.client.models[":name"].target.$post({
        param: { name: declared.name },
        json: { replicas: 2, dryRun },
      });

    const dry = await target(true);
    const real = await target(false);

    expect(dry.status).toBe(200);
    expect((await dry.json()).applied).toBe(false);
    expect((await errorOf(real, 409)).code).toBe("declared_in_config");
  });

  it("holds its name and aliases: adding a runtime model by either is a 409 name_taken", async () => {
    const byName = await api.client.models.$post({ json: modelInput({ name: declared.name }) });
    const byAlias = await api.client.models.$post({ json: modelInput({ name: "declared-alias" }) });

    expect((await errorOf(byName, 409)).code).toBe("name_taken");
    expect((await errorOf(byAlias, 409)).code).toBe("name_taken");
  });

  it("makes the mirror's plan for a version of the same name a refusal (SPEC §2.2.8)", async () => {
    await writeGgufFile(join(api.mirrorDir, declared.name, "q4", "weights.gguf"), llama3_8b());
    await api.deps.mirror.scan();

    const res = await api.client.mirror[":model"][":version"].plan.$get({
      param: { model: declared.name, version: "q4" },
      query: {},
    });

    expect(await res.json()).toMatchObject({
      already: true,
      refusal: `a model called ${declared.name} is declared in configuration; edit it there rather than adding a second`,
    });
  });
});

describe("classes, quotas and the heartbeat interval from the configuration file", () => {
  it("lists the configured classes, highest rank first", async () => {
    const classes = await (await api.client.classes.$get()).json();

    expect(classes.map((c) => [c.name, c.rank])).toEqual([
      ["critical", 300],
      ["standard", 200],
      ["batch", 100],
      ["scavenger", 10],
    ]);
    expect(classes.at(-1)?.description).toBe("whatever is left");
  });

  it("starts with the configured quota, which the API may then change", async () => {
    const before = await (await api.client.quotas.$get()).json();
    const put = await api.client.quotas[":owner"].$put({
      param: { owner: "research" },
      json: { memoryGB: 128, cpuCores: 64, gpus: null, replicas: 20 },
    });

    expect(before).toEqual([
      expect.objectContaining({ owner: "research", memoryGB: 256, cpuCores: 64, gpus: null, replicas: 20 }),
    ]);
    expect(put.status).toBe(200);
    expect((await api.deps.store.quotas.list())[0]?.memoryGB).toBe(128);
  });

  it("tells agents the configured heartbeat interval", async () => {
    const res = await api.client.agents.heartbeat.$post({
      json: heartbeat(),
    });

    expect((await res.json()).intervalSeconds).toBe(7);
  });
});
