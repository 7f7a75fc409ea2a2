// The `llmgw` command as one prebuilt ES module, so a start does not transpile the whole app's
// TypeScript (through tsx that was most of a restart's time). Built with the esbuild that tsx
// brings, into node_modules/.cache/llmgw/, and rebuilt whenever a file it was built from changed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freshManifest, keepManifest, removeOldBuilds, stampsOf } from "../apps/agent/src/buildCache.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const entry = join(root, "apps/cli/src/main.ts");
const outDir = join(root, "node_modules/.cache/llmgw");
// Names the current bundle and what it was built from. Each build writes a bundle file of its own
// and then this manifest, by rename: a start reads a bundle and inputs that belong together even
// while other processes build (tests start several servers at once).
const manifestPath = join(outDir, "cli.json");
// Bump when the build options below change: a bundle built otherwise is rebuilt.
const RECIPE = 2;
// Imported from where they are installed rather than bundled: PGlite finds its WASM and data
// files next to its own module, pg has an optional native binding it requires lazily, and esbuild
// (which `serve` runs to bundle the agent it hands out) runs its own binary from its package.
const EXTERNAL = /^(@electric-sql\/pglite|pg|esbuild)(\/|$)/;

/** The current bundle's path, when it was built from the files as they are now. */
function currentBundle() {
  const manifest = freshManifest(manifestPath, (m) => m.recipe === RECIPE && m.node === process.version);
  return manifest ? join(outDir, manifest.bundle) : null;
}

function loadEsbuild() {
  const fromTsx = createRequire(fileURLToPath(import.meta.resolve("tsx/esm/api")));
  return fromTsx("esbuild");
}

async function build() {
  const started = Date.now();
  const name = `cli-${started.toString(36)}-${process.pid}.mjs`;
  const bundlePath = join(outDir, name);
  const externals = new Set();
  const result = await loadEsbuild().build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: bundlePath,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    metafile: true,
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "silent",
    // Bundled CommonJS dependencies call require() for Node's built-ins.
    banner: {
      js: 'import { createRequire as __llmgwRequire } from "node:module"; const require = __llmgwRequire(import.meta.url);',
    },
    plugins: [
      {
        name: "llmgw",
        setup(b) {
          b.onResolve({ filter: EXTERNAL }, async (args) => {
            if (args.pluginData === "llmgw-external") return undefined;
            const found = await b.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              importer: args.importer,
              pluginData: "llmgw-external",
            });
            if (found.errors.length > 0) return { errors: found.errors };
            externals.add(found.path);
            return { path: pathToFileURL(found.path).href, external: true };
          });
          // Our sources find files next to themselves (the dashboard, a child process's script):
          // each keeps its own location rather than the bundle's.
          b.onLoad({ filter: /\.ts$/ }, (args) => {
            if (args.path.includes("/node_modules/")) return undefined;
            const source = readFileSync(args.path, "utf8");
            return {
              contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
              loader: "ts",
            };
          });
        },
      },
    ],
  });
  mkdirSync(outDir, { recursive: true });
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  const inputs = [...Object.keys(result.metafile.inputs).map((file) => join(root, file)), ...externals];
  // A file edited while building may not be in this bundle: this process runs it, as tsx would
  // have, but it does not become the current one.
  const manifest = { recipe: RECIPE, node: process.version, bundle: name, stamps: stampsOf(inputs) };
  if (keepManifest(manifestPath, manifest, started)) removeOldBuilds(outDir, "cli-", name);
  return bundlePath;
}

/** The path of an up-to-date bundle of the CLI, building it first when any input changed. */
export async function freshBundle() {
  return currentBundle() ?? (await build());
}
