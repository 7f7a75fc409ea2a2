// Values each field of each body refuses, by endpoint and dotted path: the fuzz's breakers
// (security-fuzz.ts). Every one is refused by the schema or, for a class that does not exist and a
// replica id reported twice, by the service before it writes.

export const longText = (n: number) => "x".repeat(n);
/** Values each field refuses, by dotted path: none of them passes the schema or the service. */
export const WRONG: Record<string, Record<string, unknown[]>> = {
  "POST /api/v1/models": {
    name: ["", "a b", longText(65), 5, null, "local/../x"],
    contextLength: [0, -1, 1.5, "8192", 1e308, null],
    scaling: [{ min: 2, max: 1 }, null, "always", { min: -1, max: 1 }],
    profiles: [[], null, [{}], [{ name: "cpu" }]],
    source: ["", 7, longText(2049)],
    class: ["", 5, "no-such-class"],
    owner: [longText(65), 3],
    aliases: ["a", [""], [5], Array.from({ length: 33 }, (_, i) => `alias-${i}`)],
    routingProfile: ["voice", 1],
    maxOutput: [-1, 1.5, "10"],
  },
  "PATCH /api/v1/models/:name": {
    class: ["", 1, "no-such-class"],
    memoryGB: [-1, 1.5, 1e7, "8"],
    cpuCores: [-1, 1e9],
    gpus: [2000, -3],
    mode: ["sometimes", null],
    replicas: [-1, 20_000, 0.5],
    idleTimeoutSeconds: [-1, 0.5, "900"],
    description: [longText(2001), 5],
    aliases: [["bad name"], "x"],
    contextLength: [0, -8],
    maxOutput: [-5],
  },
  "POST /api/v1/models/:name/target": { replicas: [-1, 10_001, 1.5, "3", null], dryRun: ["yes", 1] },
  "POST /api/v1/agents/heartbeat": {
    "node.name": ["", longText(129), 5, null],
    "node.memoryGB": [-1, 1e7, 1e308, "64", null],
    "node.cpuCount": [-1, 1.5, 1e6, 2 ** 53],
    "node.gpuTotal": [1025, -1],
    "node.engines": [[longText(65)], "llamacpp", Array.from({ length: 33 }, () => "e")],
    "node.labels": [{ k: 5 }, [], { [longText(129)]: "v" }],
    "node.freeMemoryGB": [-1, 2e6],
    "node.agentVersion": [longText(65)],
    replicas: [
      [{ id: "", model: "m", state: "ready" }],
      [{ id: "r", model: "m", state: "exploded" }],
      [{ id: "r", model: "m", state: "ready", memoryGB: -1 }],
      [{ id: "r", model: "m", state: "ready", measuredMemoryGB: 1e7 }],
      [
        { id: "twice", model: "m", state: "ready" },
        { id: "twice", model: "m", state: "ready" },
      ],
      "none",
    ],
  },
  "PUT /api/v1/quotas/:owner": { memoryGB: [-1, 1.5, "10"], replicas: [-1, true], gpus: [{}] },
  "POST /api/v1/tokens": { name: ["", "local", "config", "a b", 5, longText(65)], role: ["root", "", null] },
  "POST /api/v1/session": { token: ["", 5, null, longText(513)] },
};
