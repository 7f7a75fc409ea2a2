import { describe, expect, it } from "vitest";
import { formFieldOf, quotaLine, wizardFormSchema } from "./wizard-form";

const filled = {
  name: "qwen-small",
  description: "",
  aliases: "chat, small ,",
  contextLength: 8192,
  maxOutput: null,
  ctxPool: 16384,
  mode: "always",
  replicas: 1,
  minMemoryGB: 8,
  cpuCores: 4,
  nodeSelector: { key: "", value: "" },
} as const;

describe("wizardFormSchema", () => {
  it("reads aliases as a comma-separated line and a blank selector as none", () => {
    const form = wizardFormSchema.parse(filled);
    expect(form.aliases).toEqual(["chat", "small"]);
    expect(form.nodeSelector).toBeUndefined();
  });

  it("refuses an alias the catalogue would refuse, on the aliases field", () => {
    const result = wizardFormSchema.safeParse({ ...filled, aliases: "ok, not ok" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe("aliases");
  });

  it("wants both halves of a node selector", () => {
    const result = wizardFormSchema.safeParse({ ...filled, nodeSelector: { key: "size", value: "" } });
    expect(result.success).toBe(false);
  });
});

describe("formFieldOf", () => {
  it("puts the API's paths on the form's fields", () => {
    expect(formFieldOf("name")).toBe("name");
    expect(formFieldOf("aliases.0")).toBe("aliases");
    expect(formFieldOf("profiles.0.minMemoryGB")).toBe("minMemoryGB");
    expect(formFieldOf("profiles.0.cpuCores")).toBe("cpuCores");
    expect(formFieldOf("scaling.min")).toBe("replicas");
    expect(formFieldOf("contextLength")).toBe("contextLength");
    expect(formFieldOf("source")).toBeNull();
  });
});

describe("quotaLine", () => {
  const quotas = [
    {
      owner: "research",
      memoryGB: 256,
      cpuCores: null,
      gpus: 4,
      replicas: 12,
      used: { memoryGB: 40, cpuCores: 10, gpus: 0, replicas: 3 },
    },
  ];

  it("shows what the owner uses of each limit, and which have none", () => {
    expect(quotaLine(" research ", quotas)).toBe(
      "research uses 40 of 256 GB, cores: no limit, 0 of 4 GPUs, 3 of 12 replicas",
    );
  });

  it("says when the owner has no quota, or there is no owner", () => {
    expect(quotaLine("interns", quotas)).toBe("interns has no quota: no limit");
    expect(quotaLine("", quotas)).toBe("unowned: counts against no quota");
  });
});
