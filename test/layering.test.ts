import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { closureOf, packagesOnApps, shippedTestImports, workspaceOf } from "./workspace";

// The layering the README's Layout states: packages/* depend on no app, what a node installs for
// `llmgw agent` holds no API, store or dashboard (apps/agent/test/imports.test.ts checks the same
// by bundling the agent's entry), and what `serve`, `demo` and `agent` load is no test code.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER_ONLY = ["@llmgw/api", "@llmgw/store", "@llmgw/web"];

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
});
