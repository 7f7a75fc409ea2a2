import {
  formatDiskBytes,
  formatSpeed,
  formatTimeLeft,
  isDryRun,
  type Pull,
  type PullDryRun,
  type PullRequest,
  pullEnded,
  pullRequestSchema,
  pullSpecOf,
  TransferRate,
} from "@llmgw/domain";
import { usage, type Values } from "./args";
import { CtlError } from "./client";
import { type Command, type Ctx, operand, show } from "./command";
import { orDash, table, timeText } from "./table";

// `llmgw ctl mirror pull REPO[:QUANT]` (SPEC §10.6): a dry run shows what the fleet can run; a
// pull is started on the server and watched here, a progress bar on stderr, until it ends:
// exit 0 complete, 1 with the reason. The server downloads: stopping this command leaves it going.

const WATCH_EVERY_MS = 500;

/** `owner/name[:QUANT]` and the flags, checked by the schema the API checks. */
function requestOf(spec: string, values: Values): PullRequest {
  const { repo, quant } = pullSpecOf(spec);
  const parsed = pullRequestSchema.safeParse({
    repo,
    ...(quant ? { quant } : {}),
    ...(values.revision ? { revision: values.revision } : {}),
    ...(values.file ? { files: values.file } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(values.version ? { version: values.version } : {}),
    ...(values["dry-run"] ? { dryRun: true } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "");
    const flag = { repo: "REPO", quant: "QUANT", files: "--file" }[field] ?? `--${field}`;
    throw usage(`${flag}: ${issue?.message ?? "not valid"}`);
  }
  return parsed.data;
}

function dryRunText(dry: PullDryRun, ctx: Ctx): string {
  const head = `${dry.repo} at ${dry.commit.slice(0, 12)}\n`;
  const rows = dry.choices.map((c) => {
    const notes = [
      c.quant === dry.picked ? "a pull takes this" : "",
      c.quant === dry.best ? "best that fits now" : "",
      c.refusal ?? "",
    ].filter((n) => n !== "");
    return [
      c.quant,
      String(c.files.length),
      formatDiskBytes(c.bytes),
      `${c.estimateGB} GB`,
      `${c.fits} ${c.fits === 1 ? "node" : "nodes"}`,
      orDash(notes.join("; ")),
    ];
  });
  return (
    head +
    table(
      [
        { header: "QUANT" },
        { header: "FILES", align: "right" },
        { header: "SIZE", align: "right" },
        { header: "MEMORY", align: "right" },
        { header: "FITS ON", align: "right" },
        { header: "NOTE" },
      ],
      rows,
      ctx.style,
    )
  );
}

/** The progress line: a bar redrawn in place on a terminal, a line every tenth when piped. */
function progressLine(ctx: Ctx, pull: Pull) {
  const tty = ctx.stderr.isTTY === true;
  const rate = new TransferRate();
  let tenth = -1;
  return {
    update(now: Pull) {
      rate.add(Date.now(), now.bytesDone);
      const share = now.bytesTotal === 0 ? 1 : now.bytesDone / now.bytesTotal;
      const speed = rate.bytesPerSecond();
      const left = rate.secondsLeft(now.bytesTotal);
      const figures = [
        `${formatDiskBytes(now.bytesDone)} of ${formatDiskBytes(now.bytesTotal)}`,
        speed === null ? null : formatSpeed(speed),
        left === null ? null : `${formatTimeLeft(left)} left`,
        now.state === "queued" ? "queued behind other pulls" : null,
      ].filter((f) => f !== null);
      if (tty) {
        const width = 24;
        const filled = Math.round(share * width);
        ctx.stderr.write(
          `\r\x1b[2Kpull ${pull.model}/${pull.version} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${figures.join(", ")}`,
        );
      } else if (Math.floor(share * 10) !== tenth) {
        tenth = Math.floor(share * 10);
        ctx.stderr.write(`pull ${pull.model}/${pull.version}: ${figures.join(", ")}\n`);
      }
    },
    end() {
      if (tty) ctx.stderr.write("\n");
    },
  };
}

async function watch(ctx: Ctx, started: Pull): Promise<Pull> {
  const line = progressLine(ctx, started);
  let now = started;
  try {
    while (!pullEnded(now.state)) {
      line.update(now);
      await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
      now = await ctx.answer(ctx.api.mirror.pulls[":id"].$get({ param: { id: started.id } }));
    }
    line.update(now);
  } finally {
    line.end();
  }
  return now;
}

const pull: Command = {
  words: ["mirror", "pull"],
  operands: ["REPO[:QUANT]"],
  options: ["revision", "file", "model", "version", "dry-run"],
  flags: "[--revision R] [--file GLOB]… [--model M] [--version V] [--dry-run]",
  summary:
    "pull a repo's weights from the Hugging Face Hub into the mirror (Q4_K_M unless told); --dry-run lists each quantisation, its memory and the nodes it fits on",
  async run(ctx, operands, values) {
    const request = requestOf(operand(operands, 0), values);
    const answer = await ctx.answer(ctx.api.mirror.pulls.$post({ json: request }));
    if (isDryRun(answer)) {
      show(ctx, answer, (dry) => dryRunText(dry, ctx));
      return 0;
    }
    if (!ctx.json) {
      ctx.stderr.write(
        `pull ${answer.id}: ${answer.repo} at ${answer.commit.slice(0, 12)} into ${answer.model}/${answer.version}, ` +
          `${answer.files.length} ${answer.files.length === 1 ? "file" : "files"}, ${formatDiskBytes(answer.bytesTotal)} ` +
          `(the server downloads it: stopping this leaves it going; llmgw ctl mirror cancel ${answer.id} stops it)\n`,
      );
    }
    const ended = await watch(ctx, answer);
    if (ended.state !== "complete") {
      throw new CtlError({
        exitCode: 1,
        message: `pull ${ended.id} ${ended.state}: ${ended.error ?? "no reason given"}`,
        body: ended,
      });
    }
    show(
      ctx,
      ended,
      (p) =>
        `pulled ${p.repo} into ${p.model}/${p.version}: ${p.files.map((f) => f.path).join(", ")}\n` +
        "serve it from the dashboard's serve wizard; `llmgw ctl mirror` shows its plan\n",
    );
    return 0;
  },
};

const pulls: Command = {
  words: ["mirror", "pulls"],
  operands: [],
  options: [],
  summary: "pulls from the Hugging Face Hub, newest first, with their progress",
  async run(ctx) {
    show(ctx, await ctx.answer(ctx.api.mirror.pulls.$get()), (all) =>
      all.length === 0
        ? "no pulls\n"
        : table(
            [
              { header: "ID" },
              { header: "REPO" },
              { header: "INTO" },
              { header: "STATE" },
              { header: "DONE", align: "right" },
              { header: "AT" },
              { header: "ERROR" },
            ],
            all.map((p) => [
              p.id,
              p.repo,
              `${p.model}/${p.version}`,
              p.state,
              `${formatDiskBytes(p.bytesDone)} of ${formatDiskBytes(p.bytesTotal)}`,
              timeText(p.at),
              orDash(p.error),
            ]),
            ctx.style,
          ),
    );
    return 0;
  },
};

const cancel: Command = {
  words: ["mirror", "cancel"],
  operands: ["ID"],
  options: [],
  summary: "cancel a pull: it stops, and its partial files are removed",
  async run(ctx, operands) {
    const id = operand(operands, 0);
    const done = await ctx.answer(ctx.api.mirror.pulls[":id"].$delete({ param: { id } }));
    show(ctx, done, (p) => `pull ${p.id} ${p.state}\n`);
    return 0;
  },
};

export const mirrorPullCommands: Command[] = [pull, pulls, cancel];
