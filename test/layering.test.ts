import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { closureOf, packagesOnApps, workspaceOf } from "./workspace";

// The layering the README's Layout states: packages/* depend on no app, and what a node installs
// for `llmgw agent` holds no API, store or dashboard (apps/agent/test/imports.test.ts checks the
// same by bundling the agent's entry).

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
      expect.arrayContaining(["@llmgw/client", "@llmgw/contract", "@llmgw/domain"]),
    );
    expect(SERVER_ONLY.flatMap((name) => closure.get(name) ?? [])).toEqual([]);
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
  write("apps/agent/src/main.test.ts", 'import { createApp } from "@llmgw/web";\n');
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
});
