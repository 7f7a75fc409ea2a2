import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

// `llmgw agent` runs on every node: what it loads must stay the agent and the packages it needs
// (domain, contract, client, log). Bundling the entry follows what Node would load (package
// exports, the packages' own imports, type-only imports erased), which a scan of the agent's
// import lines would not: an import of the API added inside @llmgw/client would pass such a scan
// and fail this test. test/layering.test.ts checks the same closure by package manifests.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const OWN = [
  "apps/agent/src/",
  // Its version (src/version.ts).
  "apps/agent/package.json",
  "packages/domain/src/",
  "packages/client/src/",
  "packages/contract/src/",
  "packages/log/src/",
];

/** The files and packages a bundle of the agent's entry is built from. */
async function bundleInputs(): Promise<{ files: string[]; packages: Set<string> }> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["apps/agent/src/index.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  const packages = new Set(
    inputs.flatMap((file) => {
      const name = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(
        file.split("node_modules/.pnpm/").at(-1) ?? "",
      );
      return name?.[1] ? [name[1]] : [];
    }),
  );
  return { files: inputs.filter((file) => !file.includes("node_modules/")), packages };
}

function dependenciesOf(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(`${ROOT}/${packageDir}/package.json`, "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {});
}

describe("the agent's import graph", () => {
  let bundled: Awaited<ReturnType<typeof bundleInputs>>;
  beforeAll(async () => {
    bundled = await bundleInputs();
  });

  it("reaches only the agent's sources and those of the domain, the contract, the client and the log", () => {
    const { files } = bundled;

    expect(files.filter((file) => !OWN.some((dir) => file.startsWith(dir)))).toEqual([]);
    // It does follow imports through the client, or the check above proves nothing.
    expect(files).toContain("apps/agent/src/main.ts");
    expect(files).toContain("packages/log/src/logger.ts");
  });

  it("loads none of the packages only the API, the store or the dashboard need", () => {
    const { packages } = bundled;
    const shared = new Set(
      ["packages/client", "packages/domain", "packages/contract", "packages/log"].flatMap(dependenciesOf),
    );
    const serverOnly = ["apps/api", "packages/store", "apps/web"]
      .flatMap(dependenciesOf)
      .filter((name) => !shared.has(name));

    expect(serverOnly).toContain("@electric-sql/pglite");
    expect([...packages].filter((name) => serverOnly.includes(name))).toEqual([]);
  });
});
