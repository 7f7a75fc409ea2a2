import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type GgufFileSpec, writeGgufFile, writeSafetensorsFile } from "@llmgw/simulation";
import type { StandInFile, StandInHub } from "./hubStandIn";

// Repos for the stand-in Hub (hubStandIn.ts): GGUF quantisations with real headers over sparse
// tails, split files, safetensors, as the real Hub lists them. For tests, the browser tests'
// server and the bench.

/** A small llama: 4 layers × 2 KV heads × 64, whose KV cache for 16k tokens is 32 MiB. */
export const STAND_IN_LLAMA: Omit<GgufFileSpec, "weightsBytes"> = {
  architecture: "llama",
  blockCount: 4,
  headCount: 8,
  headCountKV: 2,
  embeddingLength: 512,
  contextLength: 4096,
};

/** A GGUF file at `dir/<its name>`, listed at `path` in LFS. */
export async function ggufFileAt(
  dir: string,
  path: string,
  weightsBytes: number,
  spec: Partial<GgufFileSpec> = {},
): Promise<StandInFile> {
  const file = join(dir, path.replaceAll("/", "__"));
  await writeGgufFile(file, { ...STAND_IN_LLAMA, name: path, ...spec, weightsBytes });
  return { path, file, lfs: true };
}

/** A file kept in git (README, config): served by the Hub itself, checked by its git hash. */
export function gitFile(path: string, content: string): StandInFile {
  return { path, data: Buffer.from(content), lfs: false };
}

/** An LFS file of random bytes: a resume at the wrong offset cannot pass its check by luck. */
export function randomLfsFile(path: string, bytes: number): StandInFile {
  return { path, data: randomBytes(bytes), lfs: true };
}

/**
 * `owner/<Name>-GGUF` with one file per quantisation (`<Name>-<quant>.gguf`, sizes in bytes), a
 * split quantisation in a subfolder when `split` names one, a vision projector and a README.
 */
export async function addGgufRepo(
  hub: StandInHub,
  dir: string,
  options: {
    repo: string;
    quants: Record<string, number>;
    split?: { quant: string; parts: number; bytesEach: number };
    gated?: boolean;
  },
): Promise<{ commit: string; files: StandInFile[] }> {
  const stem = options.repo.slice(options.repo.indexOf("/") + 1).replace(/-GGUF$/i, "");
  const files: StandInFile[] = [
    gitFile("README.md", `# ${options.repo}\n`),
    gitFile(".gitattributes", "*.gguf lfs\n"),
  ];
  for (const [quant, bytes] of Object.entries(options.quants)) {
    files.push(await ggufFileAt(dir, `${stem}-${quant}.gguf`, bytes, { name: `${stem} ${quant}` }));
  }
  const { split } = options;
  if (split) {
    for (let i = 0; i < split.parts; i++) {
      const name = `${stem}-${split.quant}-${String(i + 1).padStart(5, "0")}-of-${String(split.parts).padStart(5, "0")}.gguf`;
      files.push(
        await ggufFileAt(dir, `${split.quant}/${name}`, split.bytesEach, {
          split: { no: i, count: split.parts },
        }),
      );
    }
  }
  files.push(await ggufFileAt(dir, `mmproj-${stem}-f16.gguf`, 64 * 1024, { architecture: "clip" }));
  const { commit } = await hub.addRepo({ repo: options.repo, gated: options.gated ?? false, files });
  return { commit, files };
}

/** `owner/<Name>` as vLLM reads it: configuration, tokenizer and two safetensors shards. */
export async function addSafetensorsRepo(
  hub: StandInHub,
  dir: string,
  repo: string,
): Promise<{ commit: string; files: StandInFile[] }> {
  const shard = async (path: string, bytes: number): Promise<StandInFile> => {
    const file = join(dir, `${repo.replaceAll("/", "__")}__${path}`);
    await writeSafetensorsFile(file, bytes);
    return { path, file, lfs: true };
  };
  const files = [
    gitFile("config.json", '{"architectures":["LlamaForCausalLM"]}\n'),
    gitFile("tokenizer_config.json", "{}\n"),
    gitFile("README.md", `# ${repo}\n`),
    await shard("model-00001-of-00002.safetensors", 300_000),
    await shard("model-00002-of-00002.safetensors", 200_000),
    gitFile("model.safetensors.index.json", '{"weight_map":{}}\n'),
    randomLfsFile("tokenizer.json", 40_000),
    gitFile("original/params.json", "{}\n"),
  ];
  const { commit } = await hub.addRepo({ repo, files });
  return { commit, files };
}
