import { suggestCores } from "./cores";
import { memoryEstimate } from "./memory";
import {
  DEFAULT_CTX_POOL,
  type Engine,
  type GgufVerdict,
  type MirrorFile,
  type MirrorVersion,
  type Node,
  type ServePlan,
} from "./schemas";

/**
 * The engine that reads a kind of weights file, by extension (case-insensitive), or null when
 * nothing here reads it.
 */
export function engineFor(file: string): Engine | null {
  switch (extensionOf(file).toLowerCase()) {
    case ".gguf":
      return "llamacpp";
    case ".safetensors":
    case ".bin":
      return "vllm";
    default:
      return null;
  }
}

/** The profile name for an engine: named for the hardware, because a profile is about where it runs. */
export function profileFor(engine: Engine): "cpu" | "gpu" {
  return engine === "llamacpp" ? "cpu" : "gpu";
}

/** From the last dot, as written: `.Q4_K_M.gguf` files are `.gguf`. Empty when there is none. */
export function extensionOf(file: string): string {
  const slash = file.lastIndexOf("/");
  const dot = file.lastIndexOf(".");
  return dot > slash ? file.slice(dot) : "";
}

export interface ServePlanInput {
  version: MirrorVersion;
  /** The mirror's public base URL; a trailing slash is ignored. */
  baseUrl: string;
  nodes: readonly Node[];
  /** The catalogue entry of the same name, if there is one. */
  existing: { origin: "config" | "runtime" } | null;
  /** The GGUF verdict of the (first) weights file; null when none was read. */
  verdict: GgufVerdict | null;
  ctxPool?: number;
}

/**
 * What serving one mirrored version would mean (SPEC §2.2): everything a catalogue entry needs
 * that the mirror already knows, and the reasons it will not or probably will not run. Refused
 * is better than offered and then failing at placement; a warning is for what an operator can
 * still fix this afternoon (installing an engine, adding a node).
 */
export function servePlan(input: ServePlanInput): ServePlan {
  const { version, nodes, existing, verdict } = input;
  const ctxPool =
    input.ctxPool !== undefined && Number.isInteger(input.ctxPool) && input.ctxPool > 0
      ? input.ctxPool
      : DEFAULT_CTX_POOL;
  const files = version.files;
  const first = files[0];
  // A version of several files is served as the version: the agent fetches the directory and
  // hands the engine the folder.
  const source =
    files.length === 1 && first !== undefined
      ? mirrorUrl(input.baseUrl, version.model, version.version, first.file)
      : mirrorUrl(input.baseUrl, version.model, version.version, "");
  // The weights decide the engine; a version mixes kinds only when someone put one there by hand.
  const weightsFile = files.find((f) => engineFor(f.file) !== null);
  const engine = weightsFile ? engineFor(weightsFile.file) : null;
  const weightsBytes = files.reduce((sum, f) => sum + sizeOf(f), 0);
  // The verdict's summary when one was read for this plan, else what the mirror read earlier.
  const header =
    engine === "llamacpp" && (verdict === null || verdict.servable)
      ? (verdict?.summary ?? version.gguf)
      : null;
  const { minMemoryGB, memoryBasis } = memoryEstimate({ weightsBytes, summary: header, ctxPool });

  let refusal: string | null = null;
  if (first === undefined) refusal = "this version holds no files";
  else if (engine === null) refusal = `nothing here reads ${describeExtension(first.file)} files`;
  else if (engine === "llamacpp" && verdict && !verdict.servable) {
    refusal = `llama.cpp on the nodes cannot run this: ${verdict.reason ?? "the header says why not"}`;
  } else if (existing?.origin === "config") {
    refusal = `a model called ${version.model} is declared in configuration; edit it there rather than adding a second`;
  }

  const warnings: string[] = [];
  if (engine !== null && weightsFile && !runsAnywhere(nodes, engine)) {
    let clause = `no node reports having ${engine} installed, and ${describeExtension(weightsFile.file)} weights need it`;
    if (engine !== "llamacpp" && nodes.every((n) => n.gpuTotal === 0)) {
      clause += ". This fleet has no GPU either; a GGUF build of the same model runs on the CPU nodes";
    }
    warnings.push(clause);
  }
  const largest = nodes.reduce((most, n) => Math.max(most, n.memoryGB), 0);
  if (largest > 0 && minMemoryGB > largest) {
    warnings.push(`the largest node has ${formatGB(largest)} GB and this needs about ${minMemoryGB}`);
  }

  return {
    model: version.model,
    version: version.version,
    source,
    engine: engine ?? "",
    profile: engine ? profileFor(engine) : "",
    files: files.length,
    minMemoryGB,
    cpuCores: suggestCores(nodes, minMemoryGB),
    memoryBasis,
    ctxPool,
    refusal,
    warning: warnings.length > 0 ? warnings.join(", and ") : null,
    already: existing !== null,
  };
}

/** `<base>/mirror/<model>/<version>/<file>`; with no file, the version's directory (ending in "/"). */
export function mirrorUrl(baseUrl: string, model: string, version: string, file: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return `${base}/mirror/${[model, version, file].map(pathSegment).join("/")}`;
}

/**
 * Whether some node has this engine. True when no node reports any: agents older than the engine
 * probe are not empty, and placement treats that absence the same way.
 */
function runsAnywhere(nodes: readonly Node[], engine: string): boolean {
  const reporting = nodes.filter((n) => n.engines.length > 0);
  return reporting.length === 0 || reporting.some((n) => n.engines.includes(engine));
}

/** A file still downloading counts at its expected size, when the mirror knows it. */
function sizeOf(file: MirrorFile): number {
  return file.bytesTotal ?? file.bytesDone;
}

function describeExtension(file: string): string {
  const ext = extensionOf(file);
  return ext === "" ? `"${file}"` : ext;
}

function formatGB(gb: number): string {
  return Number.isInteger(gb) ? String(gb) : gb.toFixed(1);
}

/** Escapes what would break the path, keeping the `:` and `@` model names use legible. */
function pathSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/gi, ":").replace(/%40/g, "@");
}
