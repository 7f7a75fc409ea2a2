import { suggestCores } from "./cores";
import type { FleetIndex } from "./fleetIndex";
import { type GgufHeader, ggufVerdict } from "./gguf";
import { headroom } from "./headroom";
import { memoryEstimate } from "./memory";
import type { HubFile } from "./pullChoice";
import type { PullChoice } from "./pullSchemas";
import type { Model } from "./schemas";
import { engineFor, profileFor } from "./servePlan";

// SPEC §10.3: before downloading 40 GB, what each quantisation would ask of a node and on how many
// ready nodes one replica fits now. The same rules as the serve plan (§2.2.5 memory, §2.2.6 cores)
// and headroom (§2.4), applied to a model that does not exist yet.

/**
 * One quantisation as the dry run shows it. `header` is the first GGUF file's header, read by
 * Range (null for files that are not GGUF); `index` is the fleet now.
 */
export function pullChoiceOf(input: {
  quant: string;
  files: readonly HubFile[];
  header: GgufHeader | null;
  index: FleetIndex;
}): PullChoice {
  const { quant, files, header, index } = input;
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  const engine = files.map((f) => engineFor(f.path)).find((e) => e !== null) ?? null;
  const verdict = engine === "llamacpp" && header ? ggufVerdict(header) : null;
  const refusal =
    engine === null
      ? "no file here is weights an engine reads"
      : verdict && !verdict.servable
        ? `llama.cpp on the nodes cannot run this: ${verdict.reason ?? "the header says why not"}`
        : null;
  const { minMemoryGB } = memoryEstimate({ weightsBytes: bytes, summary: verdict?.summary ?? null });
  const fits = refusal || engine === null ? 0 : nodesThatFit(index, engine, minMemoryGB);
  return {
    quant,
    files: files.map((f) => ({ path: f.path, bytes: f.bytes })),
    bytes,
    estimateGB: minMemoryGB,
    fits,
    refusal,
  };
}

/**
 * Ready nodes where one replica fits on free capacity now: the headroom rule's per-node count for
 * the catalogue entry the serve wizard would make (its engine, memory and suggested cores; one GPU
 * for vLLM), with nothing preempted.
 */
function nodesThatFit(index: FleetIndex, engine: "llamacpp" | "vllm", minMemoryGB: number): number {
  const candidate: Model = {
    name: "\u0000pull candidate",
    description: "",
    source: "http://mirror.invalid/",
    aliases: [],
    contextLength: 1,
    maxOutput: null,
    routingProfile: "chat",
    class: "standard",
    owner: "",
    scaling: { min: 0, max: 1, idleTimeoutSeconds: 900 },
    profiles: [
      {
        name: profileFor(engine),
        engine,
        weight: 1,
        priority: 100,
        args: [],
        minMemoryGB,
        cpuCores: suggestCores(
          index.nodes.map((r) => r.node),
          minMemoryGB,
        ),
        gpus: engine === "vllm" ? 1 : 0,
        nodeSelector: {},
      },
    ],
    origin: "runtime",
    version: 1,
    updatedAt: "",
    updatedBy: "",
  };
  return headroom(candidate, index, []).nodes.filter((n) => n.fitFree > 0).length;
}

/**
 * The quantisation to recommend: the largest (the least lossy) that one ready node can hold now;
 * null when none fits anywhere.
 */
export function bestFitting(choices: readonly PullChoice[]): string | null {
  let best: PullChoice | null = null;
  for (const c of choices) {
    if (c.fits > 0 && c.refusal === null && (best === null || c.bytes > best.bytes)) best = c;
  }
  return best?.quant ?? null;
}

/** `4.1 GB` (decimal, as disks are sold), `120.0 MB` under a tenth of a gigabyte. */
export function formatDiskBytes(bytes: number): string {
  return bytes < 1e8 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e9).toFixed(1)} GB`;
}

/** SPEC §10.5's 507: `needs 4.1 GB, 2.0 GB free in <mirror dir>`. */
export function noSpaceMessage(neededBytes: number, freeBytes: number, dir: string): string {
  return `needs ${formatDiskBytes(neededBytes)}, ${formatDiskBytes(Math.max(0, freeBytes))} free in ${dir}`;
}
