import { join } from "node:path";
import type { QuotaUsage } from "@llmgw/domain";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { cells, fresh, json, rowOf, useCtl } from "./ctl-harness";

// The read-mostly commands: headroom (with each node's reason), fleet, mirror, quotas, audit.

const api = useCtl();

describe("headroom, fleet and mirror", () => {
  it("headroom NAME gives each node's fit and why a node holds none", async () => {
    const name = fresh("big");
    const { selector, node, beat } = api.pool();
    await api.addModel({ name, need: { minMemoryGB: 16, cpuCores: 2, nodeSelector: selector } });
    await beat();
    const small = await api.addNode({ name: fresh("small"), memoryGB: 8, labels: selector });

    const { code, stdout } = await api.ctl(["headroom", name]);

    expect(code).toBe(0);
    expect(stdout).toMatch(/^need +16 GB, 2 cores per replica$/m);
    expect(cells(stdout.split("\n").find((l) => l.startsWith("NODE")) ?? "")).toEqual([
      "NODE",
      "FIT-FREE",
      "FIT-PREEMPT",
      "REASON",
    ]);
    expect(rowOf(stdout, node)).toEqual([node, "4", "4", "-"]);
    expect(rowOf(stdout, small)).toEqual([small, "0", "0", "needs 16 GB, has 8 GB free of 8"]);

    const all = await api.ctl(["headroom"]);
    expect(rowOf(all.stdout, name).slice(0, 7)).toEqual([name, "16 GB, 2 cores", "0", "0", "0", "+4", "+0"]);
  });

  it("fleet lists nodes with free/total and replicas by class", async () => {
    const name = fresh("fleet");
    const { selector, node, beat } = api.pool();
    await api.addModel({ name, class: "critical", need: { nodeSelector: selector } });
    await beat([name], { engines: ["llamacpp"] });

    const { code, stdout } = await api.ctl(["fleet"]);

    expect(code).toBe(0);
    expect(rowOf(stdout, node).slice(0, 8)).toEqual([
      node,
      "ready",
      "56/64 GB",
      "12/16",
      "-",
      "critical 1",
      "llamacpp",
      `pool=${selector.pool}`,
    ]);
  });

  it("mirror lists versions with their serve plan", async () => {
    const model = fresh("mirrored");
    await writeGgufFile(join(api.deps.config.mirror.dir, model, "main", `${model}.Q4.gguf`), llama3_8b());
    await api.deps.mirror.scan();

    const { code, stdout } = await api.ctl(["mirror"]);

    expect(code).toBe(0);
    expect(rowOf(stdout, model).slice(0, 6)).toEqual([model, "main", "1", "4.4 GB", "complete", "llamacpp"]);
  });
});

describe("quotas and audit", () => {
  it("quota set changes only the limits given; quotas shows used/limit", async () => {
    const owner = fresh("research");
    const counted = fresh("counted");
    const { selector, beat } = api.pool();
    await api.addModel({ name: counted, owner, need: { nodeSelector: selector } });
    await beat([counted]);

    expect((await api.ctl(["quota", "set", owner, "--memory", "64", "--replicas", "4"])).code).toBe(0);
    const second = await api.ctl(["quota", "set", owner, "--cores", "32", "--memory", "none"]);
    expect(second.code).toBe(0);
    expect(rowOf(second.stdout, owner)).toEqual([owner, "8/-", "4/32", "0/-", "1/4"]);

    const { code, stdout } = await api.ctl(["quotas"]);
    expect(code).toBe(0);
    expect(cells(stdout.split("\n")[0] ?? "")).toEqual(["OWNER", "MEMORY(GB)", "CORES", "GPUS", "REPLICAS"]);
    expect(rowOf(stdout, owner)).toEqual([owner, "8/-", "4/32", "0/-", "1/4"]);
    const quotas = await json<QuotaUsage[]>(api.client().quotas.$get());
    expect(quotas.find((q) => q.owner === owner)).toMatchObject({
      memoryGB: null,
      cpuCores: 32,
      gpus: null,
      replicas: 4,
    });
  });

  it("audit --model lists that model's changes, newest first, --limit cutting the list", async () => {
    const name = fresh("audited");
    const other = fresh("other");
    await api.addModel({ name });
    await api.addModel({ name: other });
    expect((await api.ctl(["model", "set", name, "--class", "batch"])).code).toBe(0);
    expect((await api.ctl(["model", "set", name, "--mode", "stopped"])).code).toBe(0);

    const { code, stdout } = await api.ctl(["audit", "--model", name]);

    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(cells(lines[0] ?? "")).toEqual(["AT (UTC)", "BY", "ACTION", "TARGET", "FIELD", "BEFORE", "AFTER"]);
    expect(stdout).not.toContain(other);
    const fields = lines.slice(1).map((l) => cells(l).slice(2));
    // Stopping changed mode and replicas in one patch; the class change came before it.
    expect(fields.slice(0, 2).sort()).toEqual([
      ["update", name, "mode", "always", "stopped"],
      ["update", name, "replicas", "1", "0"],
    ]);
    expect(fields[2]).toEqual(["update", name, "class", "standard", "batch"]);

    const one = await api.ctl(["audit", "--model", name, "--limit", "1", "--json"]);
    expect(JSON.parse(one.stdout)).toHaveLength(1);
  });
});
