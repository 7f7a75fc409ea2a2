import { LLAMA31_8B } from "@llmgw/simulation";
import type { ReportedReplica } from "../src/agentReport";
import { DEFAULT_CLASSES } from "../src/classes";
import type {
  Class,
  GgufSummary,
  MirrorFile,
  MirrorVersion,
  Model,
  ModelTraffic,
  Node,
  Profile,
  Quota,
  Replica,
} from "../src/schemas";

// Factories for tests across packages: every call makes a fresh name or id, so no test leans
// on another's fixtures. Override what the test is about; the rest is a plausible default.

let sequence = 0;
function next(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence}`;
}

/** Each call a second later than the last, so "newest" is well defined without fixed dates. */
function nextTime(): string {
  sequence += 1;
  return new Date(Date.UTC(2025, 0, 1) + sequence * 1000).toISOString();
}

export function makeNode(overrides: Partial<Node> = {}): Node {
  return {
    name: next("node"),
    state: "ready",
    memoryGB: 64,
    cpuCount: 16,
    gpuTotal: 0,
    gpuMemoryGB: 0,
    engines: [],
    labels: {},
    freeMemoryGB: null,
    lastSeen: new Date(Date.UTC(2025, 0, 1)).toISOString(),
    agentVersion: "test",
    ...overrides,
  };
}

export function makeProfile(overrides: Partial<Profile> = {}): Profile {
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

/** A GPU profile that outranks the default CPU one: vLLM, priority 200, 16 GB, 2 cores, 1 GPU. */
export function makeGpuProfile(overrides: Partial<Profile> = {}): Profile {
  return makeProfile({
    name: "gpu",
    engine: "vllm",
    priority: 200,
    minMemoryGB: 16,
    cpuCores: 2,
    gpus: 1,
    ...overrides,
  });
}

/** A runtime model with one profile; `need` overrides that profile's fields. */
export function makeModel(overrides: Partial<Model> & { need?: Partial<Profile> } = {}): Model {
  const { need, ...rest } = overrides;
  const name = rest.name ?? next("model");
  return {
    name,
    description: "",
    source: `http://127.0.0.1:8080/mirror/${name}/main/${name}.gguf`,
    aliases: [],
    contextLength: 8192,
    maxOutput: null,
    routingProfile: "chat",
    class: "standard",
    owner: "",
    scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 },
    profiles: [makeProfile(need)],
    origin: "runtime",
    version: 1,
    updatedAt: new Date(Date.UTC(2025, 0, 1)).toISOString(),
    updatedBy: "test",
    ...rest,
  };
}

/** A ready replica; give `model` and `node` (or node null for pending). Resources default to 8 GB, 4 cores. */
export function makeReplica(overrides: Partial<Replica> = {}): Replica {
  return {
    id: next("replica"),
    model: "unknown-model",
    profile: "cpu",
    node: null,
    state: "ready",
    memoryGB: 8,
    cpuCores: 4,
    gpus: 0,
    measuredMemoryGB: null,
    startedAt: nextTime(),
    reason: null,
    endpoint: null,
    progress: null,
    ...overrides,
  };
}

/** A replica of `model` holding exactly its default profile's need. */
export function replicaOf(model: Model, overrides: Partial<Replica> = {}): Replica {
  const profile = model.profiles[0];
  return makeReplica({
    model: model.name,
    profile: profile?.name ?? "cpu",
    memoryGB: profile?.minMemoryGB ?? 0,
    cpuCores: profile?.cpuCores ?? 0,
    gpus: profile?.gpus ?? 0,
    ...overrides,
  });
}

/** A replica as an agent reports it: ready, with a fresh id; give `model`, and a stored replica's `id` to report that one. */
export function makeReported(overrides: Partial<ReportedReplica> = {}): ReportedReplica {
  return { id: next("replica"), model: "unknown-model", state: "ready", ...overrides };
}

export function makeMirrorFile(overrides: Partial<MirrorFile> = {}): MirrorFile {
  return {
    file: `${next("weights")}.gguf`,
    bytesDone: 4 * 1024 ** 3,
    bytesTotal: 4 * 1024 ** 3,
    state: "complete",
    error: null,
    sha256: null,
    ...overrides,
  };
}

export function makeMirrorVersion(overrides: Partial<MirrorVersion> = {}): MirrorVersion {
  return {
    model: next("mirrored"),
    version: "main",
    files: [makeMirrorFile()],
    gguf: null,
    ...overrides,
  };
}

export function makeQuota(overrides: Partial<Quota> & Pick<Quota, "owner">): Quota {
  return { memoryGB: null, cpuCores: null, gpus: null, replicas: null, ...overrides };
}

/** One second of a model's traffic (`model.traffic`): quiet but for what the test sets. */
export function makeTraffic(overrides: Partial<ModelTraffic> = {}): ModelTraffic {
  return {
    model: next("model"),
    requestsPerSecond: 0,
    inFlight: 0,
    queued: 0,
    waitingSeconds: null,
    waking: false,
    firstByteP50Ms: null,
    tokensPerSecond: 0,
    ...overrides,
  };
}

export function makeClasses(): Class[] {
  return DEFAULT_CLASSES.map((c) => ({ ...c }));
}

/**
 * The GGUF summary of Llama 3.1 8B Instruct Q4_K_M, as its header gives it: from the same header
 * as the files the mirror's tests and the demo write (`llama31_8b`), so the two cannot drift apart.
 */
export function llama31Summary(overrides: Partial<GgufSummary> = {}): GgufSummary {
  return { ...LLAMA31_8B, keyLength: null, valueLength: null, ...overrides };
}
