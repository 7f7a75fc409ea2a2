import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// SPEC §10.5a: `llmgw serve` logs a promise rejection nobody handled instead of exiting (Node's
// default). Run in a process of its own: in this one, the test runner's own handler would answer.

const guard = fileURLToPath(new URL("../src/processGuard.ts", import.meta.url));
const log = fileURLToPath(new URL("../../../packages/log/src/index.ts", import.meta.url));

function run(guarded: boolean) {
  const script = `
    import { guardProcess } from ${JSON.stringify(guard)};
    import { createLogger } from ${JSON.stringify(log)};
    if (${guarded}) guardProcess(createLogger());
    Promise.reject(new Error("a pull that escaped"));
    setTimeout(() => console.log("still answering"), 300);
  `;
  return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("guardProcess", () => {
  it("keeps the process running past an unhandled rejection, and logs it", () => {
    const guarded = run(true);
    expect(guarded.status).toBe(0);
    expect(guarded.stdout).toContain("still answering");
    expect(guarded.stdout).toContain("a pull that escaped");
    expect(guarded.stdout).toContain("nothing handled it");
  });

  it("is what makes the difference: without it, Node exits", () => {
    const bare = run(false);
    expect(bare.status).not.toBe(0);
    expect(bare.stdout).not.toContain("still answering");
  });
});
