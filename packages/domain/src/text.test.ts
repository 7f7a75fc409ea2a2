import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { makeModel, makeNode } from "../test/factories";
import {
  classSchema,
  heartbeatSchema,
  MAX_HEARTBEAT_REPLICAS,
  modelInputSchema,
  modelPatchSchema,
  quotaSchema,
} from "./schemas";
import { CONTROL_MESSAGE, hasControl, hasLoneSurrogate, SURROGATE_MESSAGE, text } from "./text";

const NUL = "a\u0000b";
const HIGH_ALONE = "a\ud800b";
const LOW_ALONE = "a\udc00b";

describe("text()", () => {
  it.each([
    ["NUL", NUL],
    ["ESC", "\u001b[31mred"],
    ["a carriage return", "a\rb"],
    ["DEL", "a\u007fb"],
    ["a C1 control (CSI)", "a\u009bb"],
  ])("refuses %s", (_what, value) => {
    expect(text().safeParse(value).error?.issues[0]?.message).toBe(CONTROL_MESSAGE);
  });

  it.each([
    ["a high surrogate alone", HIGH_ALONE],
    ["a low surrogate alone", LOW_ALONE],
    ["a high surrogate at the end", "ab\ud83d"],
    ["a pair the wrong way round", "\ude00\ud83d"],
  ])("refuses %s", (_what, value) => {
    expect(text().safeParse(value).error?.issues[0]?.message).toBe(SURROGATE_MESSAGE);
  });

  it("takes any other text, pairs of surrogates included", () => {
    for (const value of ["", "plain", "café — 東京", "😀 two units, one character", "a\u00a0b"]) {
      expect(text().safeParse(value).success).toBe(true);
    }
    expect(hasLoneSurrogate("😀😀")).toBe(false);
    expect(hasControl("tab\there", "\t")).toBe(false);
  });

  it("keeps line breaks and tabs for prose, and nothing else", () => {
    expect(text({ multiline: true }).safeParse("one\n\ttwo\n").success).toBe(true);
    expect(text().safeParse("one\ntwo").success).toBe(false);
    expect(text({ multiline: true }).safeParse("a\u0000b").success).toBe(false);
  });
});

type Sample = [name: string, schema: z.ZodType, valid: Record<string, unknown>];

const { origin, version, updatedAt, updatedBy, ...model } = makeModel({
  description: "d",
  owner: "ml",
  aliases: ["alias"],
  need: { args: ["--threads", "4"], nodeSelector: { zone: "a" } },
});
const { state, lastSeen, ...node } = makeNode({ engines: ["llamacpp"], labels: { zone: "a" } });

const SAMPLES: Sample[] = [
  ["model input", modelInputSchema, model],
  [
    "model patch",
    modelPatchSchema,
    { class: "batch", owner: "ml", profile: "cpu", description: "d", aliases: ["alias"] },
  ],
  [
    "heartbeat",
    heartbeatSchema,
    { node, replicas: [{ id: "replica-1", model: "m", state: "ready", profile: "cpu" }] },
  ],
  ["quota", quotaSchema, { owner: "ml", memoryGB: 1, cpuCores: null, gpus: null, replicas: 1 }],
  ["class", classSchema, { name: "gold", rank: 400, description: "d" }],
];

/** Every string in a value, as the path to it; a record's keys too, as the path to the key. */
function stringsOf(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; key: boolean }[] {
  if (typeof value === "string") return [{ path, key: false }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsOf(v, [...path, i]));
  if (typeof value !== "object" || value === null) return [];
  const free = ["labels", "nodeSelector"].includes(String(path.at(-1)));
  return Object.entries(value).flatMap(([k, v]) => [
    ...(free ? [{ path: [...path, k], key: true }] : []),
    ...stringsOf(v, [...path, k]),
  ]);
}

/** A copy of `value` with the string (or the record key) at `path` replaced by `bad`. */
function spoiled(value: unknown, path: PropertyKey[], key: boolean, bad: string): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return bad;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? spoiled(v, rest, key, bad) : v));
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]): [string, unknown] =>
    k !== head ? [k, v] : key && rest.length === 0 ? [bad, v] : [k, spoiled(v, rest, key, bad)],
  );
  return Object.fromEntries(entries);
}

describe("every string field of every input schema", () => {
  const cases = SAMPLES.flatMap(([name, schema, valid]) =>
    stringsOf(valid).flatMap(({ path, key }) =>
      [NUL, HIGH_ALONE, LOW_ALONE, "a\u001bb"].map((bad) => ({
        what: `${name} ${key ? "key at " : ""}${path.join(".")} = ${JSON.stringify(bad)}`,
        schema,
        valid,
        path: key ? [...path.slice(0, -1), bad] : path,
        input: spoiled(valid, path, key, bad),
      })),
    ),
  );

  it("has samples that pass, with strings everywhere", () => {
    for (const [, schema, valid] of SAMPLES) expect(schema.safeParse(valid).error).toBeUndefined();
    expect(cases.length).toBeGreaterThan(80);
  });

  it.each(cases)("refuses $what, naming it", ({ schema, input, path }) => {
    const issues = schema.safeParse(input).error?.issues ?? [];
    expect(issues.map((i) => i.path)).toContainEqual(path);
  });
});

describe("SPEC §4 bounds", () => {
  const beat = (nodeFacts: Record<string, unknown>, replicas: unknown[] = []) =>
    heartbeatSchema.safeParse({ node: { ...node, ...nodeFacts }, replicas });
  const firstIssue = (result: ReturnType<typeof beat>) => {
    const issue = result.error?.issues[0];
    return issue && { path: issue.path.join("."), message: issue.message };
  };

  it("takes at most 256 replicas a heartbeat, and says so", () => {
    const replicas = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `r-${i}`, model: "m", state: "ready" }));
    expect(beat({}, replicas(MAX_HEARTBEAT_REPLICAS)).success).toBe(true);
    expect(firstIssue(beat({}, replicas(MAX_HEARTBEAT_REPLICAS + 1)))).toEqual({
      path: "replicas",
      message: "at most 256 replicas per heartbeat",
    });
  });

  it("takes at most 64 labels, counted before any is read", () => {
    const labels = (n: number, key = (i: number) => `k${i}`) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [key(i), "v"]));
    expect(beat({ labels: labels(64) }).success).toBe(true);
    const huge = beat({ labels: labels(50_000, (i) => `${"k".repeat(70)}${i}`) });
    expect(huge.error?.issues).toHaveLength(1);
    expect(firstIssue(huge)).toEqual({ path: "node.labels", message: "at most 64 labels" });
  });

  it("takes label keys of at most 63 characters and values of at most 255", () => {
    expect(beat({ labels: { ["k".repeat(63)]: "v".repeat(255) } }).success).toBe(true);
    expect(firstIssue(beat({ labels: { ["k".repeat(64)]: "v" } }))).toEqual({
      path: `node.labels.${"k".repeat(64)}`,
      message: "the key must be at most 63 characters",
    });
    expect(firstIssue(beat({ labels: { k: "v".repeat(256) } }))).toEqual({
      path: "node.labels.k",
      message: "must be at most 255 characters",
    });
  });

  it.each(["", "a b", "n".repeat(65), "../etc", "node/1"])("refuses the node name %j", (name) => {
    expect(firstIssue(beat({ name }))?.path).toBe("node.name");
  });

  it.each(["-rf", "/usr/bin/vllm", "__proto__", "e".repeat(65), "llama cpp"])(
    "refuses the engine %j",
    (engine) => {
      expect(firstIssue(beat({ engines: [engine] }))?.path).toBe("node.engines.0");
    },
  );

  it("takes at most 32 engines", () => {
    const engines = Array.from({ length: 33 }, (_, i) => `engine-${i}`);
    expect(firstIssue(beat({ engines }))?.path).toBe("node.engines");
  });

  it.each([
    "/srv/models/x.gguf",
    "./x.gguf",
    "-o/tmp/x",
    "file:///etc/passwd",
    "ftp://mirror.example/x.gguf",
    "http://",
    "x",
  ])("refuses the source %j", (source) => {
    expect(modelInputSchema.safeParse({ ...model, source }).error?.issues[0]?.path).toEqual(["source"]);
  });

  it.each([
    "http://127.0.0.1:8080/mirror/m/v/m.gguf",
    "https://huggingface.co/org/repo/resolve/main/model.gguf",
    "HTTP://mirror.example/multi/",
  ])("takes the source %j", (source) => {
    expect(modelInputSchema.safeParse({ ...model, source }).success).toBe(true);
  });
});
