import { type UsageReadingRow, usageCsv } from "@llmgw/domain";
import { usage } from "./args";
import { type Command, type Ctx, show } from "./command";
import { table } from "./table";

const UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000 };

/** `--since 7d` / `--since 12h`: that long before now, as an ISO time. */
function sinceOf(text: string, now: number): string {
  const match = /^(\d{1,4})([hd])$/.exec(text);
  if (!match) throw usage(`--since: a number of hours or days, like 12h or 7d (not "${text}")`);
  return new Date(now - Number(match[1]) * (UNITS[match[2] ?? "h"] ?? 0)).toISOString();
}

function usageTable(rows: UsageReadingRow[], by: string, ctx: Ctx): string {
  if (rows.length === 0)
    return "no usage in this period (requests through the gateway are counted within a second)\n";
  return table(
    [
      { header: "AT (UTC)" },
      { header: by.toUpperCase() },
      { header: "REQUESTS" },
      { header: "REFUSED" },
      { header: "FAILED" },
      { header: "PROMPT" },
      { header: "CACHED" },
      { header: "COMPLETION" },
      ...(by === "token" ? [] : [{ header: "REPLICA-H" }]),
    ],
    rows.map((r) => [
      r.at.replace("T", " ").slice(0, 16),
      r.key,
      String(r.requests),
      String(r.refused),
      String(r.failed),
      String(r.promptTokens),
      String(r.cachedTokens),
      String(r.completionTokens),
      ...(by === "token" ? [] : [(r.replicaHours ?? 0).toFixed(2)]),
    ]),
    ctx.style,
  );
}

export const usageCommands: Command[] = [
  {
    words: ["usage"],
    operands: [],
    options: ["by", "since", "step", "csv"],
    flags: "[--by model|token|owner] [--since 7d] [--step hour|day] [--csv]",
    summary: "who used what: requests and tokens by model, client token or owner (SPEC §12.2)",
    async run(ctx, _operands, values) {
      const query: Record<string, string> = {};
      if (values.by !== undefined) query.by = values.by;
      if (values.step !== undefined) query.step = values.step;
      if (values.since !== undefined) query.from = sinceOf(values.since, Date.now());
      const reading = await ctx.answer(ctx.api.usage.$get({ query }));
      if (values.csv === true) ctx.stdout.write(usageCsv(reading.rows, reading.by));
      else show(ctx, reading, (r) => usageTable(r.rows, r.by, ctx));
      return 0;
    },
  },
];
