import type { AuditEntry, ModelView } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { cells, fresh, json, rowOf, useCtl } from "./ctl-harness";

// The catalogue commands: models, model show, model set (only what was given, and the 412),
// model target.

const api = useCtl();

describe("models", () => {
  it("lists the catalogue as an aligned table: replicas current/wanted, need and headroom", async () => {
    const name = fresh("chat");
    const owner = fresh("team");
    const { selector, beat } = api.pool();
    await api.addModel({
      name,
      owner,
      class: "batch",
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      need: { minMemoryGB: 8, cpuCores: 4, nodeSelector: selector },
    });
    await api.pool().beat(); // another pool's node: this model's selector leaves it out
    await beat([name]);

    const { code, stdout, stderr } = await api.ctl(["models"]);

    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const [header = ""] = stdout.split("\n");
    expect(cells(header)).toEqual([
      "NAME",
      "CLASS",
      "OWNER",
      "MODE",
      "REPLICAS",
      "MIN-MAX",
      "MEMORY",
      "CORES",
      "+NOW",
      "+PREEMPT",
      "QUOTA-LEFT",
      "PROFILES",
    ]);
    // 64 GB and 16 cores, one replica holding 8 and 4: 12 cores left make room for 3 more.
    expect(rowOf(stdout, name)).toEqual([
      name,
      "batch",
      owner,
      "always",
      "1/2",
      "2-2",
      "8 GB",
      "4",
      "+3",
      "+0",
      "-",
      "cpu p100 w1",
    ]);
    // Numbers are right-aligned under their headers.
    const row = stdout.split("\n").find((l) => l.startsWith(`${name} `)) ?? "";
    const end = (line: string, text: string) => line.indexOf(text) + text.length;
    expect(end(row, "1/2")).toBe(end(header, "REPLICAS"));
    expect(end(row, "8 GB")).toBe(end(header, "MEMORY"));
    expect(stdout).not.toMatch(/ \n/);
  });

  it("--json prints exactly the API's JSON, wherever the flag stands", async () => {
    await api.addModel({ name: fresh("json") });
    const expected = await json<ModelView[]>(api.client().models.$get());

    for (const args of [
      ["models", "--json"],
      ["--json", "models"],
    ]) {
      const { code, stdout, stderr } = await api.ctl(args);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(stdout)).toEqual(expected);
      expect(stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    }
  });

  it("model show prints the card, its profiles and replicas", async () => {
    const name = fresh("card");
    const { selector, node, beat } = api.pool();
    await api.addModel({ name, aliases: [fresh("alias")], need: { nodeSelector: selector } });
    await beat([name]);

    const { code, stdout } = await api.ctl(["model", "show", name]);

    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^name +${name}$`, "m"));
    expect(stdout).toMatch(/^need +8 GB, 4 cores per replica \(profile cpu\)$/m);
    expect(stdout).toMatch(/^headroom +\+3 now, \+0 by preempting; no quota limit; at most \+3/m);
    expect(stdout).toMatch(/^origin +runtime, version 1, /m);
    expect(rowOf(stdout, "PROFILE")).toEqual([
      "PROFILE",
      "PRIORITY",
      "WEIGHT",
      "REPLICAS",
      "ENGINE",
      "MEMORY",
      "CORES",
      "GPUS",
      "SELECTOR",
    ]);
    expect(rowOf(stdout, "cpu")).toEqual([
      "cpu",
      "100",
      "1",
      "1/1",
      "llamacpp",
      "8 GB",
      "4",
      "0",
      `pool=${selector.pool}`,
    ]);
    expect(rowOf(stdout, "REPLICA")).toContain("MEASURED");
    const replicaRow = stdout.split("\n").find((l) => cells(l)[1] === node) ?? "";
    expect(cells(replicaRow).slice(1, 4)).toEqual([node, "cpu", "ready"]);
  });
});

describe("a model with several profiles", () => {
  it("shows every profile, in the order placement tries them, with its priority, weight and replicas", async () => {
    const name = fresh("twofold");
    const { selector, node } = api.pool();
    const cpu = { name: "cpu", engine: "llamacpp", minMemoryGB: 8, cpuCores: 4, priority: 10, weight: 3 };
    const gpu = { name: "gpu", engine: "vllm", minMemoryGB: 16, cpuCores: 2, gpus: 1, priority: 200 };
    await api.addModel({
      name,
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      profiles: [cpu, gpu].map((p) => ({ args: [], gpus: 0, weight: 1, nodeSelector: selector, ...p })),
    });
    await api.addNode({ name: node, labels: selector }, [
      { id: fresh("replica"), model: name, state: "ready", profile: "gpu" },
      { id: fresh("replica"), model: name, state: "starting", profile: "gpu" },
      { id: fresh("replica"), model: name, state: "ready", profile: "cpu" },
    ]);

    const list = await api.ctl(["models"]);
    expect(rowOf(list.stdout, name).at(-1)).toBe("gpu p200 w1, cpu p10 w3");

    const { code, stdout } = await api.ctl(["model", "show", name]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^need +8 GB, 4 cores per replica \(profile cpu\); 2 profiles: gpu p200 w1, cpu p10 w3$/m,
    );
    const profiles = stdout.split("\n").filter((l) => ["cpu", "gpu"].includes(cells(l)[0] ?? ""));
    expect(profiles.map((l) => cells(l).slice(0, 5))).toEqual([
      ["gpu", "200", "1", "1/2", "vllm"],
      ["cpu", "10", "3", "1/1", "llamacpp"],
    ]);
    expect(rowOf(stdout, "REPLICA")).toContain("PROFILE");
    const replicas = stdout.split("\n").filter((l) => cells(l)[1] === node);
    expect(replicas.map((l) => cells(l)[2]).sort()).toEqual(["cpu", "gpu", "gpu"]);
  });
});

describe("model set", () => {
  it("sends only the given fields, with If-Match, and says what changed", async () => {
    const name = fresh("edit");
    const owner = fresh("team");
    await api.addModel({ name, owner, class: "standard" });
    const sent: { body: unknown; ifMatch: string | null }[] = [];
    const watch = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === "PATCH") {
        sent.push({
          body: JSON.parse(String(init.body)),
          ifMatch: new Headers(init.headers).get("if-match"),
        });
      }
      return api.app.request(input, init);
    };

    const next = fresh("team");
    const run = await api.ctl(["model", "set", name, "--owner", next, "--memory", "12"], { fetch: watch });

    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(sent).toEqual([{ body: { owner: next, memoryGB: 12 }, ifMatch: '"1"' }]);
    expect(run.stdout).toMatch(new RegExp(`^${name} is now version 2$`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^ +owner +${owner} → ${next}$`, "m"));
    expect(run.stdout).toMatch(/^ +memoryGB +8 → 12$/m);
    const model = await json<ModelView>(api.client().models[":name"].$get({ param: { name } }));
    expect(model).toMatchObject({ owner: next, class: "standard", version: 2 });
    expect(model.profiles[0]).toMatchObject({ minMemoryGB: 12, cpuCores: 4 });
    const audit = await json<AuditEntry[]>(api.client().audit.$get({ query: { model: name } }));
    const updates = audit.filter((e) => e.action === "update");
    expect(updates.map((e) => [e.field, e.before, e.after]).sort()).toEqual([
      ["memoryGB", 8, 12],
      ["owner", owner, next],
    ]);
  });

  it("--max and --target set autoscaling (SPEC §9.6); models and model show say replicas against min-max", async () => {
    const name = fresh("scaled");
    await api.addModel({ name, scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });

    const run = await api.ctl(["model", "set", name, "--max", "4", "--target", "2"]);

    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^ +max +1 → 4$/m);
    expect(run.stdout).toMatch(/^ +target +slots → 2$/m);
    const model = await json<ModelView>(api.client().models[":name"].$get({ param: { name } }));
    expect(model.scaling).toMatchObject({ min: 1, max: 4, targetInFlight: 2 });
    expect((await api.ctl(["models"])).stdout).toMatch(new RegExp(`^${name} .* 0/1 +1-4 `, "m"));
    const card = await api.ctl(["model", "show", name]);
    expect(card.stdout).toMatch(/^autoscale +1–4, 2 per replica: demand 0, desired 1, wanted 1$/m);

    const cleared = await api.ctl(["model", "set", name, "--target", "none"]);
    expect(cleared.stdout).toMatch(/^ +target +2 → slots$/m);
    const refused = await api.ctl(["model", "set", name, "--max", "0"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("maxReplicas");
    expect((await api.ctl(["model", "set", name, "--max", "two"])).code).toBe(2);
  });

  it("on a 412 says what changed meanwhile and applies nothing", async () => {
    const name = fresh("race");
    await api.addModel({ name });
    let raced = false;
    // Someone else's edit lands between ctl's GET and its PATCH.
    const race = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method === "PATCH" && !raced) {
        raced = true;
        const other = await api
          .client()
          .models[":name"].$patch(
            { param: { name }, json: { class: "critical" } },
            { headers: { "If-Match": '"1"' } },
          );
        expect(other.status).toBe(200);
      }
      return api.app.request(input, init);
    };

    const run = await api.ctl(["model", "set", name, "--cores", "2"], { fetch: race });

    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `${name} changed meanwhile (you had version 1, it is now 2); nothing was applied`,
    );
    expect(run.stderr).toMatch(/^ {2}class: standard → critical \(by local at .*, version 2\)$/m);
    const model = await json<ModelView>(api.client().models[":name"].$get({ param: { name } }));
    expect(model.profiles[0]?.cpuCores).toBe(4);
  });
});

describe("model target", () => {
  it("--dry-run shows the outcome, the victims and the largest fit, and changes nothing", async () => {
    const batch = fresh("batch");
    const urgent = fresh("urgent");
    const { selector, node, beat } = api.pool();
    await api.addModel({
      name: batch,
      class: "batch",
      scaling: { min: 2, max: 2, idleTimeoutSeconds: 900 },
      need: { nodeSelector: selector },
    });
    const stopped = { min: 0, max: 0, idleTimeoutSeconds: 900 };
    await api.addModel({
      name: urgent,
      class: "critical",
      scaling: stopped,
      need: { nodeSelector: selector },
    });
    await beat([batch, batch]);

    // 16 cores, 8 held by the batch replicas: 2 fit free, 4 by preempting batch.
    const fits = await api.ctl(["model", "target", urgent, "3", "--dry-run"]);

    expect(fits.code).toBe(0);
    expect(fits.stdout).toMatch(/^outcome +preempts$/m);
    expect(fits.stdout).toMatch(/^message +3 fits by preempting 1 replica$/m);
    expect(fits.stdout).toMatch(/^applied +no \(dry run\)$/m);
    expect(fits.stdout).toMatch(/^largest fit +4$/m);
    expect(cells(fits.stdout.split("\n").find((l) => l.startsWith("VICTIM")) ?? "")).toEqual([
      "VICTIM",
      "NODE",
      "CLASS",
      "REPLICA",
    ]);
    expect(rowOf(fits.stdout, batch).slice(0, 3)).toEqual([batch, node, "batch"]);

    const refused = await api.ctl(["model", "target", urgent, "9", "--dry-run"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^outcome +refused$/m);
    expect(refused.stdout).toContain("the largest target that fits is 4");

    // Not a dry run: the server's 409 target_refused, shown the same way, nothing applied.
    const refusedForReal = await api.ctl(["model", "target", urgent, "9"]);
    expect(refusedForReal.code).toBe(1);
    expect(refusedForReal.stdout).toMatch(/^outcome +refused$/m);
    expect(refusedForReal.stdout).toMatch(/^applied +no$/m);
    expect(refusedForReal.stdout).toMatch(/^largest fit +4$/m);
    const refusedJson = await api.ctl(["model", "target", urgent, "9", "--json"]);
    expect(refusedJson.code).toBe(1);
    expect(JSON.parse(refusedJson.stdout)).toMatchObject({
      outcome: "refused",
      applied: false,
      largestFit: 4,
    });

    const asJson = await api.ctl(["model", "target", urgent, "2", "--dry-run", "--json"]);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ outcome: "fits", applied: false, largestFit: 4 });
    const model = await json<ModelView>(api.client().models[":name"].$get({ param: { name: urgent } }));
    expect(model.version).toBe(1);
  });
});
