import type { AuditEntry, MirrorVersion, Model, Node, Profile, Quota, Replica } from "@llmgw/domain";

// Small builders with overrides. Names carry a counter so no two tests share an id by accident.
let seq = 0;
export const unique = (prefix: string): string => `${prefix}-${++seq}`;

const NOW = () => new Date().toISOString();

export function aModel(overrides: Partial<Model> = {}): Model {
  return {
    name: unique("model"),
    description: "",
    source: "http://127.0.0.1:8080/mirror/m/v1/m.gguf",
    aliases: [],
    contextLength: 8192,
    maxOutput: null,
    routingProfile: "chat",
    class: "standard",
    owner: "",
    scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
    profiles: [aProfile()],
    origin: "runtime",
    version: 1,
    updatedAt: NOW(),
    updatedBy: "test",
    ...overrides,
  };
}

export function aProfile(overrides: Partial<Profile> = {}): Profile {
  return {
    name: "cpu",
    engine: "llamacpp",
    weight: 1,
    priority: 100,
    args: [],
    minMemoryGB: 8,
    cpuCores: 4,
    gpus: 0,
    nodeSelector: {},
    ...overrides,
  };
}

export function aNode(overrides: Partial<Node> = {}): Node {
  return {
    name: unique("node"),
    memoryGB: 64,
    cpuCount: 16,
    gpuTotal: 0,
    gpuMemoryGB: 0,
    engines: ["llamacpp"],
    labels: {},
    freeMemoryGB: 60,
    agentVersion: "test",
    state: "ready",
    lastSeen: NOW(),
    ...overrides,
  };
}

export function aReplica(overrides: Partial<Replica> = {}): Replica {
  return {
    id: unique("replica"),
    model: unique("model"),
    profile: "cpu",
    node: null,
    state: "ready",
    memoryGB: 8,
    cpuCores: 4,
    gpus: 0,
    measuredMemoryGB: null,
    startedAt: NOW(),
    reason: null,
    ...overrides,
  };
}

export function aQuota(overrides: Partial<Quota> = {}): Quota {
  return { owner: unique("team"), memoryGB: 256, cpuCores: 64, gpus: null, replicas: 20, ...overrides };
}

export function anAuditEntry(overrides: Partial<Omit<AuditEntry, "id">> = {}): Omit<AuditEntry, "id"> {
  return {
    at: NOW(),
    by: "ops",
    action: "model.update",
    target: unique("model"),
    field: "class",
    before: "standard",
    after: "critical",
    ...overrides,
  };
}

export function aMirrorVersion(overrides: Partial<MirrorVersion> = {}): MirrorVersion {
  return {
    model: unique("model"),
    version: "v1",
    files: [{ file: "m.gguf", bytesDone: 10, bytesTotal: 10, state: "complete", error: null }],
    gguf: null,
    ...overrides,
  };
}
