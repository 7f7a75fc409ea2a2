import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, version as esbuildVersion, type Metafile } from "esbuild";
import { freshManifest, keepManifest, removeOldBuilds, stampsOf } from "./buildCache.mjs";
import { AGENT_VERSION } from "./version";

// The agent as one file (SPEC §5 "Joining a node takes one line"): `standalone.ts` and everything
// it imports (the domain, the client, the contract, the logger, zod, pino), bundled by esbuild into
// one ES module that runs on Node ≥ 20 with no node_modules. `llmgw serve` asks for it at start and
// hands it out at /install/agent.mjs. It is kept in node_modules/.cache/llmgw/ with the size and
// mtime of every file it was built from, and built again when one of them changed, so a start
// after an edit (or a fresh clone's first start) builds it once, in well under a second.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const ENTRY = "apps/agent/src/standalone.ts";
const CACHE_DIR = join(ROOT, "node_modules/.cache/llmgw");
const MANIFEST = join(CACHE_DIR, "agent.json");
// Bump when the build options below change: a bundle built otherwise is built again.
const RECIPE = 2;

// The bundle's own URL, spelled so that the CLI's bundler, which gives each source file its own
// `import.meta.url`, leaves it alone: the agent's bytes must not depend on where the server runs.
const META_URL = ["import", "meta", "url"].join(".");

/** The one-file agent, as a server hands it out. */
export type AgentBundle = {
  /** The agent's version (`node agent.mjs --version` prints it). */
  version: string;
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`: its ETag, and what install.sh checks a download and a re-run against. */
  sha256: string;
  /** Where it is cached. */
  path: string;
  /** The files it was built from, relative to the workspace (what tests check it holds). */
  inputs: string[];
  /** Built by this call, rather than found up to date in the cache. */
  builtNow: boolean;
};

type Manifest = {
  recipe: number;
  esbuild: string;
  version: string;
  file: string;
  sha256: string;
  stamps: Record<string, string>;
};

/** The one-file agent of these sources: the cached one when none changed, else built now. */
export async function agentBundle(): Promise<AgentBundle> {
  return (await cached()) ?? (await built());
}

async function cached(): Promise<AgentBundle | null> {
  const manifest = freshManifest<Manifest>(
    MANIFEST,
    (m) => m.recipe === RECIPE && m.esbuild === esbuildVersion && m.version === AGENT_VERSION,
    ROOT,
  );
  if (!manifest) return null;
  const path = join(CACHE_DIR, manifest.file);
  const bytes = await readFile(path).catch(() => null);
  if (!bytes || sha256Of(bytes) !== manifest.sha256) return null;
  const inputs = Object.keys(manifest.stamps);
  return { version: manifest.version, bytes, sha256: manifest.sha256, path, inputs, builtNow: false };
}

async function built(): Promise<AgentBundle> {
  const started = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
    // pino and its helpers are CommonJS and require() Node's built-ins: an ES module has no
    // `require` of its own, so the bundle makes one.
    banner: {
      js: `// llmgw agent ${AGENT_VERSION}: one file, Node >= 20, nothing else. Run: node agent.mjs --help\nimport { createRequire as __llmgwRequire } from "node:module"; const require = __llmgwRequire(${META_URL});`,
    },
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild wrote no agent bundle");
  const bytes = Buffer.from(output.contents);
  const sha256 = sha256Of(bytes);
  const inputs = inputsOf(result.metafile);
  const file = `agent-${sha256.slice(0, 16)}.mjs`;
  const path = join(CACHE_DIR, file);
  await mkdir(CACHE_DIR, { recursive: true });
  // Named by its content, written whole then renamed: a server reading it never sees half of it.
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, bytes);
  await rename(partial, path);
  const manifest: Manifest = {
    recipe: RECIPE,
    esbuild: esbuildVersion,
    version: AGENT_VERSION,
    file,
    sha256,
    stamps: stampsOf(inputs, ROOT),
  };
  if (keepManifest(MANIFEST, manifest, started)) removeOldBuilds(CACHE_DIR, "agent-", file);
  return { version: AGENT_VERSION, bytes, sha256, path, inputs, builtNow: true };
}

/** The files a bundle was built from, relative to the workspace (esbuild's metafile names them so). */
function inputsOf(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs).filter((file) => !file.includes(":"));
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
