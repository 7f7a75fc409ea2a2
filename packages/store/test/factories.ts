import type { AuditEntry, MirrorVersion, Node, Quota, Replica } from "@llmgw/domain";
import { makeNode, makeReplica } from "@llmgw/domain/testing";

// Small builders with overrides. Names carry a counter so no two tests share an id by accident.
let seq = 0;
export const unique = (prefix: string): string => `${prefix}-${++seq}`;

const NOW = () => new Date().toISOString();

// Models, profiles, nodes and replicas are the domain's factories (@llmgw/domain/testing), with
// the defaults these suites read back: a node that runs llama.cpp and reports free memory, and a
// replica of a model no other test names.
export { makeModel as aModel, makeProfile as aProfile } from "@llmgw/domain/testing";
export const aNode = (overrides: Partial<Node> = {}): Node =>
  makeNode({ engines: ["llamacpp"], freeMemoryGB: 60, lastSeen: NOW(), ...overrides });
export const aReplica = (overrides: Partial<Replica> = {}): Replica =>
  makeReplica({ model: unique("model"), ...overrides });

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
    files: [{ file: "m.gguf", bytesDone: 10, bytesTotal: 10, state: "complete", error: null, sha256: null }],
    gguf: null,
    ...overrides,
  };
}
