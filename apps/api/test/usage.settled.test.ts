import { DAY_MS, HOUR_MS, rollUp, USAGE_KEYS, USAGE_SETTLED_MS, type UsageRow } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { useApi } from "./harness";

// SPEC §12.2: a process keeps the sums of days that ended more than USAGE_SETTLED_MS ago once read
// (the store's SettledDays); a kept reading is the reading, and what can still change is read live.

const api = useApi();
const D0 = Date.UTC(2026, 2, 1);

const row = (hour: number, token: string, n: number, model = "chat", owner = "team-a"): UsageRow => ({
  hour,
  model,
  token,
  owner,
  requests: n,
  refused: n % 3,
  failed: n % 2,
  promptTokens: 10 * n,
  cachedTokens: n,
  completionTokens: 5 * n,
});

/** GET /usage by day over [from, to), its rows and totals. */
const read = async (by: string, from: number, to: number) => {
  const res = await api.app.request(
    `/api/v1/usage?by=${by}&step=day&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  const { rows, totals } = (await res.json()) as ReturnType<typeof rollUp>;
  return { rows, totals };
};
/** What the stored hours of [from, to) add up to by day, read without any kept day. */
const stored = async (by: (typeof USAGE_KEYS)[number], from: number, to: number) =>
  rollUp(await api.deps.store.usage.between(Math.floor(from / HOUR_MS) * HOUR_MS, to), by, "day");
const at = (now: number) => {
  api.deps.now = () => new Date(now);
};

describe("usage of settled days kept in the process", () => {
  it("reads the same from kept days as from the store, by every key, whatever the period's ends", async () => {
    const rows: UsageRow[] = [];
    for (let h = 0; h < 6 * 24; h += 5)
      rows.push(
        row(D0 + h * HOUR_MS, `token-${h % 4}`, h + 1, h % 3 ? "chat" : "code", h % 2 ? "team-a" : "team-b"),
      );
    await api.deps.store.usage.add(rows);
    at(D0 + 8 * DAY_MS);
    for (const [from, to] of [
      [D0, D0 + 6 * DAY_MS],
      [D0 + 7 * HOUR_MS + 1234, D0 + 5 * DAY_MS + 3 * HOUR_MS],
      [D0 + 2 * DAY_MS, D0 + 4 * DAY_MS],
    ] as const)
      for (const by of USAGE_KEYS) {
        const want = await stored(by, from, to);
        // The first reading keeps the days; the second reads them from memory.
        expect(await read(by, from, to), `${by} ${from}–${to}, first`).toEqual(want);
        expect(await read(by, from, to), `${by} ${from}–${to}, kept`).toEqual(want);
        const uncached = await api.deps.store.usage.sums(Math.floor(from / HOUR_MS) * HOUR_MS, to, by, "day");
        const kept = await api.deps.store.usage.sums(
          Math.floor(from / HOUR_MS) * HOUR_MS,
          to,
          by,
          "day",
          D0 + 8 * DAY_MS,
        );
        expect(kept).toEqual(uncached);
      }
  });

  it("reads today and the days cut by the period's ends live; a settled day once", async () => {
    const now = D0 + 5 * DAY_MS + 12 * HOUR_MS;
    at(now);
    await api.deps.store.usage.add([
      row(D0 + 3 * DAY_MS + 8 * HOUR_MS, "alice", 1),
      row(D0 + 4 * DAY_MS + 8 * HOUR_MS, "alice", 2),
      row(D0 + 5 * DAY_MS + 8 * HOUR_MS, "alice", 4),
    ]);
    const from = D0 + 3 * DAY_MS + 6 * HOUR_MS;
    const first = await read("token", from, now);
    expect(first.rows.map((r) => r.requests)).toEqual([1, 2, 4]);

    // Written after the reading: to the cut first day, to today, and (as no process writes any
    // more, to show it is kept) to the settled day between them.
    await api.deps.store.usage.add([
      row(D0 + 3 * DAY_MS + 9 * HOUR_MS, "alice", 8),
      row(D0 + 4 * DAY_MS + 9 * HOUR_MS, "alice", 16),
      row(D0 + 5 * DAY_MS + 9 * HOUR_MS, "alice", 32),
    ]);
    expect((await read("token", from, now)).rows.map((r) => r.requests)).toEqual([9, 2, 36]);
    // Another key has kept nothing yet: it reads the day as it is now.
    expect((await read("model", from, now)).rows.map((r) => r.requests)).toEqual([9, 18, 36]);
  });

  it("reads a day that ended less than USAGE_SETTLED_MS ago live, so a late write shows", async () => {
    const ended = D0 + 2 * DAY_MS;
    await api.deps.store.usage.add([row(ended - HOUR_MS, "alice", 1), row(D0, "bob", 2)]);
    at(ended + USAGE_SETTLED_MS - 1);
    const wanted = () => stored("token", D0, ended);
    expect(await read("token", D0, ended)).toEqual(await wanted());
    // A process writing its last second of the day late (its write failed once, its clock behind).
    await api.deps.store.usage.add([row(ended - HOUR_MS, "alice", 4)]);
    const late = await read("token", D0, ended);
    expect(late.rows.map((r) => [r.key, r.requests])).toEqual([
      ["bob", 2],
      ["alice", 5],
    ]);
    expect(late).toEqual(await wanted());

    // Settled now: kept from here on, with every write.
    at(ended + USAGE_SETTLED_MS);
    expect(await read("token", D0, ended)).toEqual(late);
    expect(await read("token", D0, ended)).toEqual(late);
  });

  it("forgets kept days when the store is emptied", async () => {
    at(D0 + 3 * DAY_MS);
    await api.deps.store.usage.add([row(D0 + HOUR_MS, "alice", 3)]);
    expect((await read("token", D0, D0 + DAY_MS)).rows).toHaveLength(1);
    await api.deps.store.reset();
    expect((await read("token", D0, D0 + DAY_MS)).rows).toEqual([]);
  });
});
