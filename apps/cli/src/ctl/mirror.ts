import type { MirrorEntry } from "@llmgw/domain";
import { type Command, type Ctx, show } from "./command";
import { orDash, table } from "./table";

const GIB = 1024 ** 3;

function size(bytes: number): string {
  return bytes >= GIB ? `${(bytes / GIB).toFixed(1)} GB` : `${Math.ceil(bytes / 1024 ** 2)} MB`;
}

/** `complete`, `downloading 42%` (or without a percentage when the total is unknown), `failed`. */
function progress(entry: MirrorEntry): string {
  if (entry.files.some((f) => f.state === "failed")) return "failed";
  if (entry.files.every((f) => f.state === "complete")) return "complete";
  const totals = entry.files.map((f) => f.bytesTotal);
  if (totals.some((t) => t === null)) return "downloading";
  const done = entry.files.reduce((sum, f) => sum + f.bytesDone, 0);
  const total = totals.reduce<number>((sum, t) => sum + (t ?? 0), 0);
  return total === 0 ? "downloading" : `downloading ${Math.floor((done / total) * 100)}%`;
}

/** What stands out about serving it: the refusal, else the warning, else that it is served already. */
function note(entry: MirrorEntry): string {
  const { plan } = entry;
  if (plan.refusal) return `refused: ${plan.refusal}`;
  if (plan.warning) return `warning: ${plan.warning}`;
  return plan.already ? "in the catalogue" : "";
}

function mirrorTable(entries: MirrorEntry[], ctx: Ctx): string {
  if (entries.length === 0) return "the mirror holds no versions\n";
  return table(
    [
      { header: "MODEL" },
      { header: "VERSION" },
      { header: "FILES", align: "right" },
      { header: "SIZE", align: "right" },
      { header: "STATE" },
      { header: "ENGINE" },
      { header: "MEMORY", align: "right" },
      { header: "CORES", align: "right" },
      { header: "NOTE" },
    ],
    entries.map((e) => [
      e.model,
      e.version,
      String(e.files.length),
      size(e.files.reduce((sum, f) => sum + (f.bytesTotal ?? f.bytesDone), 0)),
      progress(e),
      e.plan.refusal ? "-" : e.plan.engine,
      e.plan.refusal ? "-" : `${e.plan.minMemoryGB} GB`,
      e.plan.refusal ? "-" : String(e.plan.cpuCores),
      orDash(note(e)),
    ]),
    ctx.style,
  );
}

export const mirrorCommands: Command[] = [
  {
    words: ["mirror"],
    operands: [],
    options: [],
    summary: "mirrored versions: download progress and the serve plan (engine, memory, cores)",
    async run(ctx) {
      show(ctx, await ctx.answer(ctx.api.mirror.$get()), (entries) => mirrorTable(entries, ctx));
      return 0;
    },
  },
];
