import { describeOnEachDatabase } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { runCrash } from "./crash-run";

// The short crash drill (`pnpm crash` runs the long one): SIGKILL the real server during a write
// load, start it again, and find every acknowledged write and nothing half-written.

const KILLS = 5;
describeOnEachDatabase("crash on $name", ({ url }) => {
  it(`${KILLS} kills under load lose no acknowledged write`, async () => {
    const report = await runCrash({ kills: KILLS, postgres: url });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(KILLS);
    const { creates, patches, heartbeats } = report.acknowledged;
    expect(creates).toBeGreaterThan(0);
    expect(patches).toBeGreaterThan(0);
    expect(heartbeats).toBeGreaterThan(0);
    expect(report.checks).toBeGreaterThan(0);
  }, 120_000);
});
