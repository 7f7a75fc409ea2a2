import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { circlesAgainst, circlesOf, importGraph, type KnownCircle } from "./importCircles";
import { closureOf, packagesOnApps, shippedSources, shippedTestImports, workspaceOf } from "./workspace";

// The layering the README's Layout states: packages/* depend on no app, what a node installs for
// `llmgw agent` holds no API, store or dashboard (apps/agent/test/imports.test.ts checks the same
// by bundling the agent's entry), what `serve`, `demo` and `agent` load is no test code, and no
// shipped file reaches itself through imports (types included).

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER_ONLY = ["@llmgw/api", "@llmgw/store", "@llmgw/web"];

/**
 * The import circles shipped code still has, each by one of its files and its size at most. The
 * list only shrinks: a new circle fails, so does one that grew, and so does a line whose circle is
 * gone. None is left (issue 40): a new one fails here.
 */
const KNOWN_CIRCLES: readonly KnownCircle[] = [];

describe("the workspace's layers", () => {
  const packages = workspaceOf(ROOT);

  it("has no package under packages/ depending on an app, by package.json or by import", () => {
    expect(packages.get("@llmgw/contract")?.dir).toBe("packages/contract");
    expect(packagesOnApps(packages)).toEqual([]);
  });

  it("keeps the API, the store and the dashboard out of the agent's closure", () => {
    const closure = closureOf(packages, "@llmgw/agent");

    // It does follow the agent's dependencies, or the check below proves nothing.
    expect([...closure.keys()]).toEqual(
      expect.arrayContaining(["@llmgw/contract", "@llmgw/domain", "@llmgw/log"]),
    );
    expect(SERVER_ONLY.flatMap((name) => closure.get(name) ?? [])).toEqual([]);
  });

  it("ships no test code: no module of a package's src/ imports a test or testing module", () => {
    expect(shippedTestImports(ROOT)).toEqual([]);
  });

  it("has no import circle among shipped files but the known ones, and none of those grew", () => {
    const files = shippedSources(ROOT).filter((file) => !file.endsWith(".md"));
    const graph = importGraph(ROOT, files);
    // It does read the imports, or the check below proves nothing.
    expect(graph.get("apps/api/src/app.ts")).toContain("apps/api/src/deps.ts");
    expect(circlesAgainst(circlesOf(graph), KNOWN_CIRCLES)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const root = mkdtempSync(join(tmpdir(), "llmgw-layers-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  const manifest = (name: string, dependencies: string[] = []) =>
    JSON.stringify({ name, dependencies: Object.fromEntries(dependencies.map((d) => [d, "workspace:*"])) });

  // The layout before the contract was a package: the client depended on the API for it.
  write("pnpm-workspace.yaml", "packages:\n  - apps/*\n  - packages/*\n");
  write("apps/api/package.json", manifest("@llmgw/api", ["@llmgw/store"]));
  write("packages/store/package.json", manifest("@llmgw/store"));
  write("apps/agent/package.json", manifest("@llmgw/agent", ["@llmgw/client"]));
  write("packages/client/package.json", manifest("@llmgw/client", ["@llmgw/api"]));
  write("packages/domain/package.json", manifest("@llmgw/domain"));
  write("packages/domain/src/index.ts", 'import type { AppType } from "@llmgw/api";\n');
  write("apps/agent/src/main.ts", 'import { connect } from "@llmgw/client";\n');
  write("apps/agent/src/sneaky.ts", 'const store = await import("@llmgw/store");\n');
  write(
    "apps/agent/src/main.test.ts",
    'import { createApp } from "@llmgw/web";\nimport { it } from "vitest";\n',
  );
  // The demo as it was: its engines and fixtures from the API's testing entry.
  write("apps/cli/package.json", JSON.stringify({ name: "@llmgw/cli", devDependencies: { openai: "7" } }));
  write("apps/cli/src/demo.ts", 'import { StandInEngine } from "@llmgw/api/testing";\n');
  write(
    "apps/cli/src/serve.ts",
    'import { tokensYaml } from "../test/kit";\nimport type { X } from "openai";\n',
  );
  write("apps/cli/src/testing/engine.ts", 'import fc from "fast-check";\n');
  write("apps/cli/src/ctl.ts", 'import { z } from "zod";\nimport { fields } from "./testing/engine";\n');
  const old = workspaceOf(root);

  it("finds a package depending on an app by its manifest and by an undeclared import", () => {
    expect(packagesOnApps(old)).toEqual([
      "@llmgw/client → @llmgw/api (package.json)",
      "@llmgw/domain → @llmgw/api (packages/domain/src/index.ts)",
    ]);
  });

  it("follows the agent's closure through manifests and shipped imports, not its tests", () => {
    const closure = closureOf(old, "@llmgw/agent");
    expect(closure.get("@llmgw/api")).toBe(
      "@llmgw/agent → @llmgw/client (package.json) → @llmgw/api (package.json)",
    );
    expect(closure.get("@llmgw/store")).toBe("@llmgw/agent → @llmgw/store (apps/agent/src/sneaky.ts)");
    expect(closure.has("@llmgw/web")).toBe(false);
  });

  it("finds shipped modules importing test code, by package, by path or by a dev dependency", () => {
    expect(shippedTestImports(root).sort()).toEqual([
      "apps/cli/src/ctl.ts imports ./testing/engine",
      "apps/cli/src/demo.ts imports @llmgw/api/testing",
      "apps/cli/src/serve.ts imports ../test/kit",
      "apps/cli/src/serve.ts imports openai",
    ]);
  });

  it("finds an import circle through type-only imports and re-exports, and leaves a chain alone", () => {
    write(
      "packages/loop/src/route.ts",
      'import type { Need } from "./access";\nexport type Route = { need: Need };\n',
    );
    write(
      "packages/loop/src/access.ts",
      'import { ROUTES } from "./contract.js";\nexport type Need = "viewer";\n',
    );
    write("packages/loop/src/contract.ts", 'export * from "./route";\nexport const ROUTES = [];\n');
    write("packages/loop/src/index.ts", 'export * from "./contract";\nimport "./leaf";\n');
    write("packages/loop/src/leaf.ts", "export const leaf = 1;\n");
    const files = ["route", "access", "contract", "index", "leaf"].map((f) => `packages/loop/src/${f}.ts`);
    const circles = circlesOf(importGraph(root, files));
    expect(circles).toEqual([
      ["packages/loop/src/access.ts", "packages/loop/src/contract.ts", "packages/loop/src/route.ts"],
    ]);

    expect(circlesAgainst(circles, [])).toEqual([
      "new circle: packages/loop/src/access.ts ↔ packages/loop/src/contract.ts ↔ packages/loop/src/route.ts",
    ]);
    expect(circlesAgainst(circles, [{ through: "packages/loop/src/route.ts", atMost: 3 }])).toEqual([]);
    expect(circlesAgainst(circles, [{ through: "packages/loop/src/route.ts", atMost: 2 }])).toEqual([
      expect.stringMatching(/^the circle through packages\/loop\/src\/route.ts grew to 3 files/),
    ]);
    expect(
      circlesAgainst(circles, [
        { through: "packages/loop/src/route.ts", atMost: 3 },
        { through: "packages/loop/src/leaf.ts", atMost: 2 },
      ]),
    ).toEqual(["packages/loop/src/leaf.ts is in no circle any more: take it off the known list"]);
  });
});
