import { segment } from "@llmgw/client";
import { type BenchProgress, type BenchSend, BenchStopped, runBench } from "@llmgw/client/bench";
import {
  type BenchRequest,
  type BenchResult,
  benchLine,
  benchRequestSchema,
  type ModelView,
  type StoredBench,
} from "@llmgw/domain";
import { usage, type Values, wholeNumber } from "./args";
import { CtlError } from "./client";
import { type Command, type Ctx, operand } from "./command";
import { gb, keyValues, orDash, table } from "./table";

// `llmgw ctl bench` (SPEC §5): the honest number. It sends chat completions through the gateway
// exactly as a client would, measures them (@llmgw/client's `runBench`, which the server's
// "Measure" runs too), prints the figures and stores them as the model's bench.

/** The flags as a bench request, checked by the schema the API checks `POST /models/:name/bench` with. */
function requestOf(values: Values): BenchRequest {
  const concurrency = values.concurrency
    ?.split(",")
    .map((level) => wholeNumber("--concurrency", level.trim()));
  const parsed = benchRequestSchema.safeParse({
    ...(concurrency ? { concurrency } : {}),
    ...(values.requests ? { requests: wholeNumber("--requests", values.requests) } : {}),
    ...(values["max-tokens"] ? { maxTokens: wholeNumber("--max-tokens", values["max-tokens"]) } : {}),
    ...(values["prompt-tokens"]
      ? { promptTokens: wholeNumber("--prompt-tokens", values["prompt-tokens"]) }
      : {}),
    ...(values["shared-prefix"]
      ? { sharedPrefix: wholeNumber("--shared-prefix", values["shared-prefix"]) }
      : {}),
    ...(values.tenants ? { tenants: wholeNumber("--tenants", values.tenants) } : {}),
  });
  if (parsed.success && parsed.data.tenants !== undefined && parsed.data.sharedPrefix === undefined)
    throw usage("--tenants: needs --shared-prefix (the beginning each tenant's requests share)");
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = {
      maxTokens: "--max-tokens",
      promptTokens: "--prompt-tokens",
      sharedPrefix: "--shared-prefix",
    }[String(issue?.path[0])];
    throw usage(`${flag ?? `--${String(issue?.path[0] ?? "")}`}: ${issue?.message ?? "not valid"}`);
  }
  return parsed.data;
}

/** The gateway's `/v1/chat/completions`, reached as any OpenAI client would, with ctl's token. */
function sendOf(ctx: Ctx): BenchSend {
  const { server, token, fetch: own } = ctx.connection;
  const request = own ?? fetch;
  return async (body, signal) =>
    request(`${server}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
      signal,
    });
}

/** The progress line: a bar redrawn in place on a terminal, a plain line per concurrency when piped. */
function progressLine(ctx: Ctx, model: string) {
  const tty = ctx.stderr.isTTY === true;
  let level: number | null = null;
  let finished = false;
  return {
    update(p: BenchProgress) {
      if (tty) {
        const width = 24;
        const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
        ctx.stderr.write(
          `\r\x1b[2Kbench ${model} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${p.done}/${p.total} at ${p.concurrency} concurrent, ${p.errors} errors`,
        );
      } else if (p.concurrency !== level) {
        ctx.stderr.write(
          `bench ${model}: ${p.concurrency} concurrent (${p.done}/${p.total} done, ${p.errors} errors)\n`,
        );
      }
      level = p.concurrency;
    },
    end() {
      if (finished) return;
      finished = true;
      if (tty && level !== null) ctx.stderr.write("\n");
    },
  };
}

const ms = (n: number | null) => (n === null ? "-" : `${Math.round(n)} ms`);
const rate = (n: number | null) => (n === null ? "-" : String(n));
const share = (n: number | undefined) => (n === undefined ? "-" : `${Math.round(n * 100)}%`);

function benchText(
  result: BenchResult,
  estimateGB: number | null,
  stored: StoredBench | null,
  ctx: Ctx,
): string {
  const runs = table(
    [
      { header: "CONCURRENCY", align: "right" },
      { header: "REQUESTS", align: "right" },
      { header: "ERRORS", align: "right" },
      { header: "TTFT-P50", align: "right" },
      { header: "TTFT-P95", align: "right" },
      { header: "ITL-P50", align: "right" },
      { header: "TOK/S", align: "right" },
      { header: "TOK/S/REQ", align: "right" },
      { header: "REQ/S", align: "right" },
      { header: "CACHED", align: "right" },
    ],
    result.runs.map((r) => [
      String(r.concurrency),
      String(r.requests),
      String(r.errors),
      ms(r.ttftMs.p50),
      ms(r.ttftMs.p95),
      ms(r.itlMsP50),
      rate(r.tokensPerSecond),
      rate(r.tokensPerSecondPerRequest),
      rate(r.requestsPerSecond),
      share(r.cachedPromptRatio),
    ]),
    ctx.style,
  );
  const replicas =
    result.replicas.length === 0
      ? ""
      : `\n${table(
          [{ header: "REPLICA" }, { header: "NODE" }, { header: "MEASURED", align: "right" }],
          result.replicas.map((r) => [
            r.id,
            orDash(r.node),
            r.measuredMemoryGB === null ? "-" : gb(r.measuredMemoryGB),
          ]),
          ctx.style,
        )}`;
  const summary = keyValues(
    [
      ["summary", benchLine(result, estimateGB) || "no request succeeded"],
      ["stored", stored ? `as ${result.model}'s bench, ${stored.at} by ${stored.by}` : "no"],
    ],
    ctx.style,
  );
  return `${runs}${replicas}\n${summary}`;
}

/** The model by its name, or by an alias as the gateway takes it (`llama3`); the API reads names only. */
async function modelNamed(ctx: Ctx, name: string): Promise<ModelView> {
  const byName = (n: string) => ctx.answer(ctx.api.models[":name"].$get({ param: { name: segment(n) } }));
  try {
    return await byName(name);
  } catch (err) {
    if (!(err instanceof CtlError) || err.status !== 404) throw err;
    const aliased = (await ctx.answer(ctx.api.models.$get())).find((m) => m.aliases.includes(name));
    if (!aliased) throw err;
    return byName(aliased.name);
  }
}

export const benchCommand: Command = {
  words: ["bench"],
  operands: ["NAME"],
  options: ["concurrency", "requests", "max-tokens", "prompt-tokens", "shared-prefix", "tenants"],
  flags:
    "[--concurrency 1,4,16] [--requests N] [--max-tokens N] [--prompt-tokens N] [--shared-prefix N --tenants K]",
  summary:
    "measure what the model's replicas can do, through the gateway like a client (waking it if it must): time to first token, tokens/s, requests/s per concurrency and the memory measured; stored as its bench (operator)",
  async run(ctx, operands, values) {
    const input = requestOf(values);
    const model = await modelNamed(ctx, operand(operands, 0));
    const param = { name: segment(model.name) };
    const progress = progressLine(ctx, model.name);
    let result: BenchResult;
    try {
      result = await runBench({
        model: model.name,
        ...input,
        send: sendOf(ctx),
        replicas: async () => (await ctx.answer(ctx.api.models[":name"].$get({ param }))).replicas,
        onProgress: (p) => progress.update(p),
      });
    } catch (err) {
      if (!(err instanceof BenchStopped)) throw err;
      throw new CtlError({
        exitCode: 1,
        status: err.status,
        code: err.code,
        message: `${model.name} cannot be measured: ${err.message} (${err.code})`,
      });
    } finally {
      progress.end();
    }
    // Stored as the dashboard's own bench is; a caller who may not store it still gets the figures.
    const stored = await ctx
      .answer(ctx.api.models[":name"].bench.$put({ param, json: result }))
      .catch((err: unknown) => {
        if (!(err instanceof CtlError)) throw err;
        ctx.stderr.write(`llmgw ctl: the bench was not stored: ${err.message}\n`);
        return null;
      });
    if (ctx.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else ctx.stdout.write(benchText(result, model.headroom.need.memoryGB, stored, ctx));
    return 0;
  },
};
