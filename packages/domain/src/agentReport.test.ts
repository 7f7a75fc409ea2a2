import { describe, expect, it, vi } from "vitest";
import {
  makeMirrorFile,
  makeMirrorVersion,
  makeModel,
  makeNode,
  makeReported,
  replicaOf,
} from "../test/factories";
import {
  desiredReplicas,
  mergeReport,
  nodeFactsMoved,
  type ReportedReplica,
  sameReading,
} from "./agentReport";
import type { Model, Replica } from "./schemas";

const NOW = "2025-06-01T12:00:00.000Z";
const GRACE_MS = 15_000;

/** A beat from `node` under a running scheduler, merged with the store's replicas there. */
function merge(input: {
  node: string;
  models: Model[];
  reported?: ReportedReplica[];
  stored?: Replica[];
  scheduled?: boolean;
}) {
  const scheduled = input.scheduled ?? true;
  return mergeReport({
    node: input.node,
    reported: input.reported ?? [],
    stored: input.stored ?? [],
    models: new Map(input.models.map((m) => [m.name, m])),
    now: NOW,
    scheduled,
    graceMs: scheduled ? GRACE_MS : 0,
  });
}

const ago = (ms: number) => new Date(Date.parse(NOW) - ms).toISOString();

describe("mergeReport", () => {
  it("takes the agent's state and measurement for a replica the scheduler placed, keeping when it started", () => {
    const model = makeModel();
    const node = makeNode();
    const placed = replicaOf(model, { node: node.name, state: "starting", startedAt: ago(5_000) });
    const [merged] = merge({
      node: node.name,
      models: [model],
      stored: [placed],
      reported: [
        makeReported({
          id: placed.id,
          model: model.name,
          measuredMemoryGB: 7.2,
          endpoint: "http://10.0.0.7:41234/",
        }),
      ],
    });
    expect(merged).toEqual({
      ...placed,
      state: "ready",
      measuredMemoryGB: 7.2,
      endpoint: "http://10.0.0.7:41234",
    });
  });

  it("keeps a replica the scheduler is stopping stopping, with its reason, while the agent still runs it", () => {
    const model = makeModel();
    const node = makeNode();
    const victim = replicaOf(model, { node: node.name, state: "stopping", reason: "preempted" });
    const reported = makeReported({ id: victim.id, model: model.name, endpoint: "http://10.0.0.7:1" });
    const [merged] = merge({ node: node.name, models: [model], stored: [victim], reported: [reported] });
    expect(merged).toMatchObject({ state: "stopping", reason: "preempted", endpoint: null });

    const [failed] = merge({
      node: node.name,
      models: [model],
      stored: [victim],
      reported: [{ ...reported, state: "failed", reason: "exited" }],
    });
    expect(failed).toMatchObject({ state: "failed", reason: "exited" });
  });

  it("keeps a draining replica's mark and reason while the agent reports it ready (SPEC §9.3)", () => {
    const model = makeModel();
    const node = makeNode();
    const draining = replicaOf(model, {
      node: node.name,
      state: "ready",
      endpoint: "http://10.0.0.7:1",
      drainingSince: ago(1_000),
      reason: "draining: more replicas than wanted (1)",
    });
    const reported = makeReported({ id: draining.id, model: model.name, endpoint: "http://10.0.0.7:1" });
    const [merged] = merge({ node: node.name, models: [model], stored: [draining], reported: [reported] });
    expect(merged).toEqual(draining);

    const [failed] = merge({
      node: node.name,
      models: [model],
      stored: [draining],
      reported: [{ ...reported, state: "failed", reason: "engine exited" }],
    });
    expect(failed).toMatchObject({ state: "failed", reason: "engine exited" });
    expect(failed?.drainingSince).toBeUndefined();
  });

  it("counts a replica the scheduler did not place as the agent's own while the scheduler runs", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 4 } });
    const node = makeNode();
    const own = makeReported({ model: model.name, memoryGB: 3, endpoint: "http://10.0.0.7:2" });
    const [merged] = merge({ node: node.name, models: [model], reported: [own] });
    // It holds what it reports (nothing reported is nothing held) and is never routed to.
    expect(merged).toMatchObject({
      id: own.id,
      node: node.name,
      memoryGB: 3,
      cpuCores: 0,
      endpoint: null,
      startedAt: NOW,
      unmanaged: true,
    });
  });

  it("counts every reported replica of a catalogue model as the model's without a scheduler", () => {
    const model = makeModel({ need: { minMemoryGB: 8, cpuCores: 4 } });
    const node = makeNode();
    const reported = makeReported({ model: model.name });
    const [merged] = merge({ node: node.name, models: [model], reported: [reported], scheduled: false });
    expect(merged).toMatchObject({ profile: "cpu", memoryGB: 8, cpuCores: 4 });
    expect(merged).not.toHaveProperty("unmanaged");
  });

  it("keeps what the agent has not had its turn to start, and forgets the rest it no longer reports", () => {
    const model = makeModel();
    const node = makeNode();
    const nominated = replicaOf(model, { node: node.name, state: "pending" });
    const justPlaced = replicaOf(model, { node: node.name, state: "starting", startedAt: ago(GRACE_MS - 1) });
    const neverStarted = replicaOf(model, { node: node.name, state: "starting", startedAt: ago(GRACE_MS) });
    const stopped = replicaOf(model, { node: node.name, state: "stopping" });
    const lost = replicaOf(model, { node: node.name, state: "ready" });
    const merged = merge({
      node: node.name,
      models: [model],
      stored: [nominated, justPlaced, neverStarted, stopped, lost],
    });
    expect(merged).toEqual([nominated, justPlaced]);
  });

  it("keeps the stored measurement while the new one has barely moved, so the beat writes nothing", () => {
    const model = makeModel();
    const node = makeNode();
    const running = replicaOf(model, { node: node.name, measuredMemoryGB: 7 });
    const beat = (measuredMemoryGB: number) =>
      merge({
        node: node.name,
        models: [model],
        stored: [running],
        reported: [makeReported({ id: running.id, model: model.name, measuredMemoryGB })],
      })[0]?.measuredMemoryGB;
    expect(beat(7.3)).toBe(7);
    expect(beat(7.6)).toBe(7.6);
  });
});

describe("sameReading", () => {
  it("is a difference under half a GB; not reported is the same only as not reported", () => {
    expect(sameReading(10, 10.49)).toBe(true);
    expect(sameReading(10, 10.5)).toBe(false);
    expect(sameReading(null, null)).toBe(true);
    expect(sameReading(null, 0)).toBe(false);
  });
});

describe("nodeFactsMoved", () => {
  it("ignores lastSeen and a small move of free memory, and sees every other change", () => {
    const before = makeNode({ freeMemoryGB: 40 });
    expect(nodeFactsMoved(before, { ...before, lastSeen: NOW, freeMemoryGB: 40.3 })).toBe(false);
    expect(nodeFactsMoved(before, { ...before, freeMemoryGB: 38 })).toBe(true);
    expect(nodeFactsMoved(before, { ...before, labels: { rack: "7" } })).toBe(true);
  });
});

describe("desiredReplicas", () => {
  it("asks the node to run the catalogue's starting and ready replicas, with what their profile says", () => {
    const model = makeModel({ need: { name: "gpu", engine: "vllm", args: ["--flag"], gpus: 1 } });
    const node = makeNode().name;
    const starting = replicaOf(model, { node, state: "starting" });
    const ready = replicaOf(model, { node, state: "ready" });
    const others = [
      replicaOf(model, { node, state: "pending" }),
      replicaOf(model, { node, state: "stopping" }),
      replicaOf(model, { node, state: "failed" }),
      replicaOf(model, { node, unmanaged: true }),
      replicaOf(makeModel(), { node }),
    ];
    const desired = desiredReplicas(new Map([[model.name, model]]), [starting, ready, ...others], () => null);
    expect(desired).toEqual(
      [starting, ready].map((r) => ({
        id: r.id,
        model: model.name,
        profile: "gpu",
        revision: 1,
        engine: "vllm",
        source: model.source,
        args: ["--flag"],
        memoryGB: r.memoryGB,
        cpuCores: r.cpuCores,
        gpus: 1,
        files: [],
      })),
    );
  });

  it("lists the mirrored version's complete files, looking each version up once per call", () => {
    const version = makeMirrorVersion({
      files: [
        makeMirrorFile({
          file: "m-00001-of-00002.gguf",
          bytesDone: 10,
          bytesTotal: 10,
          sha256: "a".repeat(64),
        }),
        makeMirrorFile({ file: "m-00002-of-00002.gguf", bytesDone: 20, bytesTotal: 20 }),
        makeMirrorFile({ file: "extra.gguf", bytesDone: 5, bytesTotal: 50, state: "downloading" }),
      ],
    });
    const mirrored = makeModel({
      source: `http://10.0.0.1:8080/mirror/${version.model}/${version.version}/m-00001-of-00002.gguf`,
    });
    const elsewhere = makeModel({ source: "https://huggingface.co/org/repo/resolve/main/m.gguf" });
    const node = makeNode().name;
    const replicas = [
      replicaOf(mirrored, { node, state: "starting" }),
      replicaOf(mirrored, { node, state: "ready" }),
      replicaOf(elsewhere, { node, state: "ready" }),
    ];
    const lookUp = vi.fn((model: string, name: string) =>
      model === version.model && name === version.version ? version : null,
    );

    const desired = desiredReplicas(new Map([mirrored, elsewhere].map((m) => [m.name, m])), replicas, lookUp);

    const files = [
      {
        url: `/mirror/${version.model}/${version.version}/m-00001-of-00002.gguf`,
        path: "m-00001-of-00002.gguf",
        bytes: 10,
        sha256: "a".repeat(64),
      },
      {
        url: `/mirror/${version.model}/${version.version}/m-00002-of-00002.gguf`,
        path: "m-00002-of-00002.gguf",
        bytes: 20,
        sha256: null,
      },
    ];
    expect(desired.map((r) => r.files)).toEqual([files, files, []]);
    expect(lookUp).toHaveBeenCalledTimes(1);
  });
});
