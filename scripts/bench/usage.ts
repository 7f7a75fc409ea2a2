// Who used what (SPEC §12), two figures:
//
// - usage recording, 10 processes × 2,000 models × 200 tokens on one PostgreSQL (usageRecord.ts):
//   at most one write transaction a process a second, every request stored.
// - reading: `GET /api/v1/usage?by=token&step=day` over 90 days of 2,000 client tokens, over HTTP
//   (usageRead.ts), on the embedded store and on PostgreSQL, for two shapes of use.
import { child, type Row } from "./report";

export const names = ["usage recording", "usage reading"];

type Read = {
  storedRows: number;
  seedMs: number;
  plainBytes: number;
  plainMs: number;
  gzipBytes: number;
  min: number;
  median: number;
  max: number;
  cpuMs: number;
  loadBefore: number;
  loadAfter: number;
};

const MB = 1_000_000;
const SHAPES = {
  "every-day": "every token every day (180,000 token-days)",
  "long-tail": "each token one day in ten (18,000 token-days)",
} as const;

async function reading(kind: "pglite" | "postgres", shape: keyof typeof SHAPES): Promise<Row> {
  const measure = `usage reading: GET /usage?by=token&step=day, 90 days × 2,000 tokens, ${SHAPES[shape]}, ${kind === "pglite" ? "embedded store" : "PostgreSQL"}`;
  const aim = "≤ 200 ms, ≤ 1 MB";
  if (kind === "postgres" && !process.env.TEST_DATABASE_URL)
    return { measure, value: "not run: needs TEST_DATABASE_URL", aim, met: null };
  const read = child("./usageRead.ts", [kind, shape]);
  try {
    const r = await read.ask<Read>(null);
    console.log(
      `${measure}: ${r.storedRows.toLocaleString("en")} stored hours (seeded in ${(r.seedMs / 1000).toFixed(1)} s); ` +
        `first read ${r.plainMs.toFixed(0)} ms, ${(r.plainBytes / MB).toFixed(2)} MB of JSON; load average ${r.loadBefore.toFixed(1)} → ${r.loadAfter.toFixed(1)}`,
    );
    return {
      measure,
      value: `${r.median.toFixed(0)} ms median (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}), ${r.cpuMs.toFixed(0)} ms of the server's CPU a read; ${(r.gzipBytes / MB).toFixed(2)} MB gzipped (${(r.plainBytes / MB).toFixed(2)} MB of JSON)`,
      aim,
      met: r.max <= 200 && r.gzipBytes <= MB,
    };
  } finally {
    await read.stop();
  }
}

export async function run(only: RegExp | null): Promise<Row[]> {
  const rows: Row[] = [];
  if (!only || only.test("usage recording")) {
    const record = child("./usageRecord.ts");
    try {
      rows.push(...(await record.ask<{ rows: Row[] }>(null)).rows);
    } finally {
      await record.stop();
    }
  }
  if (!only || only.test("usage reading"))
    for (const kind of ["pglite", "postgres"] as const)
      for (const shape of ["long-tail", "every-day"] as const) rows.push(await reading(kind, shape));
  return rows;
}
