import type { UsageRow } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { rowOf, useCtl } from "./ctl-harness";

// `llmgw ctl usage` (SPEC §12.2) over hours the store holds.

const api = useCtl();

const row = (hour: number, token: string, owner: string, n: number): UsageRow => ({
  hour,
  model: "chat",
  token,
  owner,
  requests: n,
  refused: 1,
  failed: 0,
  promptTokens: 10 * n,
  cachedTokens: 0,
  completionTokens: 5 * n,
});

describe("ctl usage", () => {
  it("prints the table by owner and day, and the same rows as CSV", async () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const day = new Date(Math.floor(hour / 86_400_000) * 86_400_000).toISOString();
    await api.deps.store.usage.add([row(hour, "alice", "team-a", 2), row(hour, "bob", "team-a", 3)]);
    await api.deps.store.usage.addReplicaHours([
      {
        hour,
        model: "chat",
        owner: "team-a",
        replicaHours: 1.5,
        memoryGBHours: 24,
        coreHours: 6,
        gpuHours: 0,
      },
    ]);

    const shown = await api.ctl(["usage", "--by", "owner", "--since", "7d", "--step", "day"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(rowOf(shown.stdout, day.replace("T", " ").slice(0, 16))).toEqual([
      day.replace("T", " ").slice(0, 16),
      "team-a",
      "5",
      "2",
      "0",
      "50",
      "0",
      "25",
      "1.50",
    ]);

    const csv = await api.ctl(["usage", "--by", "token", "--csv"]);
    expect(csv.code, csv.stderr).toBe(0);
    const hourIso = new Date(hour).toISOString();
    expect(csv.stdout).toBe(
      "at,key,requests,refused,failed,promptTokens,cachedTokens,completionTokens\n" +
        `${hourIso},alice,2,1,0,20,0,10\n${hourIso},bob,3,1,0,30,0,15\n`,
    );
  });

  it("refuses a --since it cannot read, and a --by the server does not know", async () => {
    expect((await api.ctl(["usage", "--since", "soon"])).code).not.toBe(0);
    const bad = await api.ctl(["usage", "--by", "color"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("by");
  });
});
