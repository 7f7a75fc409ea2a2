import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

// The workspace's packages as their manifests and their sources say they depend on each other,
// for the layering rules (test/layering.test.ts). Reads files only: any tree can be checked.

export type WorkspacePackage = {
  name: string;
  /** Relative to the root: `apps/api`, `packages/domain`. */
  dir: string;
  /** Workspace packages it lists in `dependencies` (what is installed with it). */
  runtime: string[];
  /** …in `devDependencies` or `peerDependencies`. */
  development: string[];
  /** Workspace packages its source files import, by file. */
  imports: { file: string; name: string }[];
};

type Manifest = {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** `from "@llmgw/x…"`, `import "@llmgw/x…"`, `import("@llmgw/x…")`: the package name. */
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](@llmgw\/[\w.-]+)/g;
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

/** The folders pnpm-workspace.yaml lists (`apps/*`, `e2e`), those with a package.json. */
function packageDirs(root: string): string[] {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const block = yaml.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  const globs = [...block.matchAll(/^\s+-\s+["']?([^"'\s]+)["']?\s*$/gm)].map((m) => m[1] ?? "");
  return globs
    .flatMap((glob) =>
      glob.endsWith("/*")
        ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
        : [glob],
    )
    .filter((dir) => existsSync(join(root, dir, "package.json")));
}

function sourceFiles(root: string, dir: string): string[] {
  const entries = readdirSync(join(root, dir), { recursive: true, encoding: "utf8" });
  return entries
    .filter((file) => SOURCE.test(file) && !/(^|\/)(node_modules|dist)\//.test(file))
    .map((file) => `${dir}/${file}`);
}

export function workspaceOf(root: string): Map<string, WorkspacePackage> {
  const manifests = packageDirs(root).map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest,
  }));
  const names = new Set(manifests.flatMap(({ manifest }) => (manifest.name ? [manifest.name] : [])));
  const ours = (deps: Record<string, string> | undefined) =>
    Object.keys(deps ?? {}).filter((n) => names.has(n));
  const packages = new Map<string, WorkspacePackage>();
  for (const { dir, manifest } of manifests) {
    if (!manifest.name) continue;
    const imports = sourceFiles(root, dir).flatMap((file) =>
      [...readFileSync(join(root, file), "utf8").matchAll(IMPORT)]
        .map((m) => m[1] ?? "")
        .filter((name) => names.has(name) && name !== manifest.name)
        .map((name) => ({ file, name })),
    );
    packages.set(manifest.name, {
      name: manifest.name,
      dir,
      runtime: ours(manifest.dependencies),
      development: [...ours(manifest.devDependencies), ...ours(manifest.peerDependencies)],
      imports,
    });
  }
  return packages;
}

/** A test file, a test-only module or a test folder: not what a package ships. */
export const isTestFile = (file: string) =>
  /\.test\.tsx?$/.test(file) ||
  /(^|\/)(test|testing)(\/|\.ts$)/.test(file.replace(/^(apps|packages)\/[^/]+\//, ""));

/**
 * What installing and running `start` brings along: its `dependencies`, and the packages its shipped
 * sources import (declared or not), transitively. Each with the path it was reached by.
 */
export function closureOf(packages: Map<string, WorkspacePackage>, start: string): Map<string, string> {
  const reached = new Map<string, string>([[start, start]]);
  const queue = [start];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const pkg = packages.get(name);
    if (!pkg) continue;
    const shipped = pkg.imports.filter(({ file }) => file.startsWith(`${pkg.dir}/src/`) && !isTestFile(file));
    const next = [
      ...pkg.runtime.map((dep) => ({ dep, via: "package.json" })),
      ...shipped.map(({ name: dep, file }) => ({ dep, via: file })),
    ];
    for (const { dep, via } of next) {
      if (reached.has(dep)) continue;
      reached.set(dep, `${reached.get(name)} → ${dep} (${via})`);
      queue.push(dep);
    }
  }
  return reached;
}

/** Each package under packages/ that depends on one under apps/, by manifest or by import: how. */
export function packagesOnApps(packages: Map<string, WorkspacePackage>): string[] {
  const apps = new Set([...packages.values()].filter((p) => p.dir.startsWith("apps/")).map((p) => p.name));
  return [...packages.values()]
    .filter((pkg) => pkg.dir.startsWith("packages/"))
    .flatMap((pkg) => [
      ...[...pkg.runtime, ...pkg.development]
        .filter((dep) => apps.has(dep))
        .map((dep) => `${pkg.name} → ${dep} (package.json)`),
      ...pkg.imports
        .filter(({ name }) => apps.has(name))
        .map(({ name, file }) => `${pkg.name} → ${name} (${file})`),
    ]);
}

/** Packages that only tests and test tooling load, whoever lists them. */
const TEST_ONLY = /^(vitest|@vitest\/.*|fast-check|@playwright\/test|@axe-core\/playwright|node-llama-cpp)$/;
/** Every import specifier of a source file, type-only ones included. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? "");

/**
 * Each import by which shipped code (a package's src/, less its tests and testing modules) reaches
 * test code: a test file or testing module by path, a workspace package's `/testing` entry, a
 * package only tests use, or one its package lists only in devDependencies (not installed with it).
 */
export function shippedTestImports(root: string): string[] {
  const hits: string[] = [];
  for (const dir of packageDirs(root)) {
    if (!existsSync(join(root, dir, "src"))) continue;
    const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest;
    const installed = new Set([...Object.keys(manifest.dependencies ?? {}), manifest.name]);
    const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
    for (const file of sourceFiles(root, `${dir}/src`)) {
      if (isTestFile(file)) continue;
      for (const [, specifier = ""] of readFileSync(join(root, file), "utf8").matchAll(SPECIFIER)) {
        const name = packageOf(specifier);
        const testing = specifier.startsWith(".")
          ? isTestFile(join(dirname(file), specifier))
          : specifier.startsWith("node:")
            ? false
            : /^@llmgw\/[\w.-]+\/testing$/.test(specifier) ||
              TEST_ONLY.test(name) ||
              (dev.has(name) && !installed.has(name));
        if (testing) hits.push(`${file} imports ${specifier}`);
      }
    }
  }
  return hits;
}

const SHIPPED_TEXT = /\.(ts|tsx|mts|mjs|js|md)$/;

/** Files (sources and notes) under each package's src/ that ship: tests and testing modules left out. */
export function shippedSources(root: string): string[] {
  return ["apps", "packages"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const src = `${group}/${entry.name}/src`;
        try {
          return readdirSync(join(root, src), { recursive: true, encoding: "utf8" })
            .filter((file) => SHIPPED_TEXT.test(file) && !file.includes("node_modules"))
            .map((file) => `${src}/${file}`)
            .filter((file) => !isTestFile(file));
        } catch {
          return [];
        }
      }),
  );
}
