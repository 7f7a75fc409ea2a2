// Values each field of each body refuses, by endpoint and dotted path: the fuzz's breakers
// (security-fuzz.ts). Every one is refused by the schema or, for a class that does not exist and a
// replica id reported twice, by the service before it writes.

export const longText = (n: number) => "x".repeat(n);

/**
 * What no string field takes (SPEC §4): NUL, the other C0 controls but tab and line feed (which a
 * description keeps), DEL, C1, an escape sequence and lone surrogates. JSON.stringify sends each as
 * the `\u` escape a client would.
 */
export const HOSTILE_TEXT = [
  "\u0000",
  "\u0001",
  "\r",
  "\u001b[2J",
  "\u001b]0;title\u0007",
  "\u007f",
  "\u0085",
  "\u009b31m",
  "\ud800",
  "\udfff",
] as const;

/** `text` with each hostile piece in its middle: one wrong value per piece. */
const spoilt = (text: string) => HOSTILE_TEXT.map((bad) => `${text.slice(0, 2)}${bad}${text.slice(2)}`);

/** SPEC §4 bounds, far past: 50,000 labels and 10,000 replicas (each under the 1 MiB body limit). */
const hugeLabels = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, ""]));
const hugeReplicas = Array.from({ length: 10_000 }, (_, i) => ({ id: `r${i}`, model: "m", state: "ready" }));
/** Values each field refuses, by dotted path: none of them passes the schema or the service. */
export const WRONG: Record<string, Record<string, unknown[]>> = {
  "POST /api/v1/models": {
    name: ["", "a b", longText(65), 5, null, "local/../x", ...spoilt("model")],
    contextLength: [0, -1, 1.5, "8192", 1e308, null],
    scaling: [{ min: 2, max: 1 }, null, "always", { min: -1, max: 1 }],
    profiles: [[], null, [{}], [{ name: "cpu" }]],
    source: [
      "",
      7,
      longText(2049),
      "/srv/models/x.gguf",
      "-oProxyCommand=x",
      "file:///etc/passwd",
      ...spoilt("http://mirror.example/x.gguf"),
    ],
    class: ["", 5, "no-such-class", ...spoilt("standard")],
    owner: [longText(65), 3, ...spoilt("owner")],
    description: [longText(2001), ...spoilt("words")],
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
    description: [longText(2001), 5, ...spoilt("words")],
    owner: [longText(65), ...spoilt("owner")],
    aliases: [["bad name"], "x", ...spoilt("alias").map((a) => [a])],
    contextLength: [0, -8],
    maxOutput: [-5],
  },
  "POST /api/v1/models/:name/target": { replicas: [-1, 10_001, 1.5, "3", null], dryRun: ["yes", 1] },
  "POST /api/v1/models/:name/rollout": { action: ["", "rollback", 1, null, "promote\u0000"] },
  "POST /api/v1/models/:name/bench": {
    concurrency: [[], [0], [257], [1.5], "1,4", null, Array.from({ length: 17 }, () => 1)],
    requests: [0, -1, 10_001, 1.5, "32"],
    maxTokens: [0, 32_769, "8"],
    promptTokens: [0, -1, null],
  },
  "PUT /api/v1/models/:name/bench": {
    model: ["", 5, null, longText(129), ...spoilt("model")],
    runs: [[], null, [{}], [{ concurrency: 0 }], "fast"],
    measuredMemoryGB: [-1, 2e6, "5"],
    replicas: [
      [{ id: "" }],
      "none",
      [{ id: "r", node: null, measuredMemoryGB: -1 }],
      ...spoilt("replica").map((id) => [{ id, node: null, measuredMemoryGB: null }]),
    ],
  },
  "POST /api/v1/agents/heartbeat": {
    "node.name": ["", longText(65), 5, null, "a b", "node/1", ...spoilt("node")],
    "node.memoryGB": [-1, 1e7, 1e308, "64", null],
    "node.cpuCount": [-1, 1.5, 1e6, 2 ** 53],
    "node.gpuTotal": [1025, -1],
    "node.engines": [
      [longText(65)],
      "llamacpp",
      Array.from({ length: 33 }, () => "e"),
      ["-rf"],
      ["/usr/bin/vllm"],
      ...spoilt("vllm").map((e) => [e]),
    ],
    "node.labels": [
      { k: 5 },
      [],
      { [longText(64)]: "v" },
      { k: longText(256) },
      hugeLabels,
      ...spoilt("zone").map((k) => ({ [k]: "v" })),
      ...spoilt("value").map((v) => ({ zone: v })),
    ],
    "node.freeMemoryGB": [-1, 2e6],
    "node.agentVersion": [longText(65), ...spoilt("1.0.0")],
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
      hugeReplicas,
      ...spoilt("replica").map((id) => [{ id, model: "m", state: "ready" }]),
      ...spoilt("model").map((model) => [{ id: "r", model, state: "ready" }]),
    ],
  },
  "PUT /api/v1/quotas/:owner": { memoryGB: [-1, 1.5, "10"], replicas: [-1, true], gpus: [{}] },
  "POST /api/v1/mirror/pulls": {
    repo: [
      "",
      "name",
      "a/b/c",
      "../b",
      "a/..",
      "a/b..c",
      "a /b",
      longText(201),
      5,
      null,
      ...spoilt("owner/name"),
    ],
    revision: ["", "../main", "a b", longText(256), 7, null, ...spoilt("main")],
    quant: ["", "Q4 K", longText(65), 4, ...spoilt("Q4_K_M")],
    files: [
      [],
      "*.gguf",
      ["../x"],
      ["/abs"],
      ["a\\b"],
      [5],
      Array.from({ length: 65 }, () => "*"),
      ...spoilt("*.gguf").map((g) => [g]),
    ],
    model: ["", ".hidden", "a b", longText(65), 3, ...spoilt("model")],
    version: ["", ".v", "a/b", longText(65), ...spoilt("Q4_K_M")],
    dryRun: ["yes", 1, null],
  },
  "POST /api/v1/tokens": {
    name: ["", "local", "config", "a b", 5, longText(65), ...spoilt("token")],
    role: ["root", "", null],
  },
  "POST /api/v1/session": { token: ["", 5, null, longText(513), ...spoilt("llmgw_0123456789")] },
};
