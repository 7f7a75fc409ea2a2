import { rollUp, USAGE_KEYS, USAGE_STEPS, type UsageRow } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { errorOf, useApi } from "./harness";

// SPEC §12.2: GET /api/v1/usage over stored hours, on the file's store, JSON and CSV.

const api = useApi();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 10, 0, 0, 0);

const row = (hour: number, model: string, token: string, owner: string, n: number): UsageRow => ({
  hour,
  model,
  token,
  owner,
  requests: n,
  refused: 0,
  failed: 0,
  promptTokens: 10 * n,
  cachedTokens: 0,
  completionTokens: 5 * n,
});

const get = (query: string, accept = "application/json") =>
  api.app.request(`/api/v1/usage${query}`, { headers: { accept } });

describe("GET /api/v1/usage", () => {
  it("sums by the chosen key and step, with totals, as JSON and as CSV", async () => {
    await api.deps.store.usage.add([
      row(T0, "chat", "alice", "team-a", 1),
      row(T0 + HOUR, "chat", "bob", "team-a", 2),
      row(T0 + HOUR, "code", "alice", "team-b", 4),
      row(T0 + 30 * HOUR, "chat", "alice", "team-a", 8),
    ]);
    // Replica time (SPEC §12.1): by model and owner only; an hour with replicas and no request is a row.
    await api.deps.store.usage.addReplicaHours([
      {
        hour: T0,
        model: "chat",
        owner: "team-a",
        replicaHours: 1,
        memoryGBHours: 16,
        coreHours: 4,
        gpuHours: 0,
      },
      {
        hour: T0 + HOUR,
        model: "chat",
        owner: "team-a",
        replicaHours: 0.5,
        memoryGBHours: 8,
        coreHours: 2,
        gpuHours: 0,
      },
      {
        hour: T0 + 2 * HOUR,
        model: "gpu",
        owner: "team-c",
        replicaHours: 2,
        memoryGBHours: 80,
        coreHours: 16,
        gpuHours: 2,
      },
    ]);
    const from = new Date(T0).toISOString();
    const to = new Date(T0 + 48 * HOUR).toISOString();

    const res = await get(`?by=owner&step=day&from=${from}&to=${to}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { rows: Record<string, unknown>[]; totals: Record<string, number> };
    expect(
      body.rows.map((r) => [r.at, r.key, r.requests, r.promptTokens, r.replicaHours, r.gpuHours]),
    ).toEqual([
      ["2026-01-10T00:00:00.000Z", "team-a", 3, 30, 1.5, 0],
      ["2026-01-10T00:00:00.000Z", "team-b", 4, 40, 0, 0],
      ["2026-01-10T00:00:00.000Z", "team-c", 0, 0, 2, 2],
      ["2026-01-11T00:00:00.000Z", "team-a", 8, 80, 0, 0],
    ]);
    expect(body.totals).toMatchObject({
      requests: 15,
      promptTokens: 150,
      completionTokens: 75,
      replicaHours: 3.5,
      memoryGBHours: 104,
      coreHours: 22,
      gpuHours: 2,
    });

    const byToken = (await (await get(`?by=token&from=${from}&to=${to}`)).json()) as typeof body;
    expect(byToken.rows.map((r) => [r.key, r.requests])).toEqual([
      ["alice", 1],
      ["alice", 4],
      ["bob", 2],
      ["alice", 8],
    ]);
    expect(byToken.rows.some((r) => "replicaHours" in r)).toBe(false);
    expect("replicaHours" in byToken.totals).toBe(false);
    const tokenCsv = await (await get(`?by=token&from=${from}&to=${to}`, "text/csv")).text();
    expect(tokenCsv.split("\n")[0]).toBe(
      "at,key,requests,refused,failed,promptTokens,cachedTokens,completionTokens",
    );

    const csv = await get(`?by=model&step=day&from=${from}&to=${to}`, "text/csv");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(await csv.text()).toBe(
      "at,key,requests,refused,failed,promptTokens,cachedTokens,completionTokens,replicaHours,memoryGBHours,coreHours,gpuHours\n" +
        "2026-01-10T00:00:00.000Z,chat,3,0,0,30,0,15,1.5,24,6,0\n" +
        "2026-01-10T00:00:00.000Z,code,4,0,0,40,0,20,0,0,0,0\n" +
        "2026-01-10T00:00:00.000Z,gpu,0,0,0,0,0,0,2,80,16,2\n" +
        "2026-01-11T00:00:00.000Z,chat,8,0,0,80,0,40,0,0,0,0\n",
    );
  });

  it("sums in the store exactly as the stored hours add up, by every key and step", async () => {
    const rows: UsageRow[] = [];
    const replicaRows = [];
    for (let h = 0; h < 60; h += 7)
      for (const [model, owner] of [
        ["chat", "team-a"],
        ["code", "team-b"],
      ] as const) {
        rows.push(row(T0 + h * HOUR, model, h % 2 ? "alice" : "bob", owner, h + 1));
        replicaRows.push({
          hour: T0 + h * HOUR,
          model,
          owner,
          replicaHours: 0.25,
          memoryGBHours: 4,
          coreHours: 1,
          gpuHours: 0.25,
        });
      }
    await api.deps.store.usage.add(rows);
    await api.deps.store.usage.addReplicaHours(replicaRows);
    // Days cut at both ends (the store reads their hours) around whole days (read from its day
    // rows); whole days only; a part of one day; a part of one hour.
    for (const [from, to] of [
      [T0 + 5 * HOUR + 1234, T0 + 50 * HOUR],
      [T0, T0 + 48 * HOUR],
      [T0 + 5 * HOUR, T0 + 22 * HOUR],
      [T0 + 28 * HOUR + 1234, T0 + 28 * HOUR + 5678],
    ] as const) {
      const stored = await api.deps.store.usage.between(Math.floor(from / HOUR) * HOUR, to);
      const storedReplicas = await api.deps.store.usage.replicaHoursBetween(
        Math.floor(from / HOUR) * HOUR,
        to,
      );
      for (const by of USAGE_KEYS)
        for (const step of USAGE_STEPS) {
          const period = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
          const res = await get(`?by=${by}&step=${step}&${period}`);
          const { rows: got, totals } = (await res.json()) as ReturnType<typeof rollUp>;
          expect(got.length, `${by} by ${step}, ${period}`).toBeGreaterThan(0);
          expect({ got, totals }, `${by} by ${step}, ${period}`).toEqual(
            (({ rows: got, totals }) => ({ got, totals }))(rollUp(stored, by, step, storedReplicas)),
          );
        }
    }
  });

  it.each([
    ["an unknown by", "?by=color", "by"],
    ["an unknown step", "?step=week", "step"],
    ["from after to", "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ["a period over 400 days", "?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
    ["a time that is no ISO time", "?from=yesterday", "from"],
  ])("refuses %s (400 naming the field)", async (_what, query, field) => {
    const error = await errorOf(await get(query), 400);
    expect(Object.keys(error.fields ?? {})).toEqual([field]);
  });
});
