import { segment } from "@llmgw/client";
import type { Role, TokenCreate, TokenView } from "@llmgw/contract";
import { usage, type Values, wholeNumber } from "./args";
import { type Command, type Ctx, operand, show } from "./command";
import { keyValues, orDash, table, timeText } from "./table";

const ROLES: readonly Role[] = ["viewer", "operator", "admin", "agent", "client"];

/** A table cell holds this many model names; `--json` has the whole list. */
const MODELS_SHOWN = 3;

/** A client token's models: "all" when it lists none; a long list is cut, saying how much. */
function modelsText(t: Pick<TokenView, "role" | "models">): string {
  if (t.role !== "client") return "-";
  if (t.models === null) return "all";
  const shown = t.models.slice(0, MODELS_SHOWN).join(", ");
  return t.models.length > MODELS_SHOWN ? `${shown} +${t.models.length - MODELS_SHOWN} more` : shown;
}

/** "60/min, 4 at once, 20000 tokens/day"; "none" for a client token without limits. */
function limitsText(
  t: Pick<TokenView, "role" | "requestsPerMinute" | "concurrency" | "tokensPerDay">,
): string {
  if (t.role !== "client") return "-";
  const limits = [
    ...(t.requestsPerMinute === null ? [] : [`${t.requestsPerMinute}/min`]),
    ...(t.concurrency === null ? [] : [`${t.concurrency} at once`]),
    ...(t.tokensPerDay === null ? [] : [`${t.tokensPerDay} tokens/day`]),
  ];
  return limits.length > 0 ? limits.join(", ") : "none";
}

/** A client token's tokens today, of its budget when it has one: "1200 of 20000"; "-" for other roles. */
function todayText(t: Pick<TokenView, "tokensUsedToday" | "tokensPerDay">): string {
  if (t.tokensUsedToday === null) return "-";
  return t.tokensPerDay === null ? String(t.tokensUsedToday) : `${t.tokensUsedToday} of ${t.tokensPerDay}`;
}

/** The request `token create` sends: the server checks which fields the role may have. */
function creationOf(values: Values): TokenCreate {
  if (values.name === undefined) throw usage("token create: --name is required");
  const models = values.models
    ?.split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  if (models !== undefined && models.length === 0) throw usage("--models: name at least one model");
  return {
    name: values.name,
    role: roleOf(values.role),
    ...(values.node === undefined ? {} : { node: values.node }),
    ...(models === undefined ? {} : { models }),
    ...(values.rpm === undefined ? {} : { requestsPerMinute: wholeNumber("--rpm", values.rpm) }),
    ...(values.concurrency === undefined
      ? {}
      : { concurrency: wholeNumber("--concurrency", values.concurrency) }),
    ...(values["tokens-per-day"] === undefined
      ? {}
      : { tokensPerDay: wholeNumber("--tokens-per-day", values["tokens-per-day"]) }),
  };
}

function tokensTable(tokens: TokenView[], ctx: Ctx): string {
  return table(
    [
      { header: "NAME" },
      { header: "ROLE" },
      { header: "NODE" },
      { header: "MODELS" },
      { header: "LIMITS" },
      { header: "TODAY" },
      { header: "ORIGIN" },
      { header: "CREATED (UTC)" },
      { header: "BY" },
      { header: "LAST-USED (UTC)" },
    ],
    tokens.map((t) => [
      t.name,
      t.role,
      t.role === "agent" ? (t.node ?? "(first beat)") : "-",
      modelsText(t),
      limitsText(t),
      todayText(t),
      t.origin === "config" ? "llmgw.yaml" : "runtime",
      t.createdAt ? timeText(t.createdAt) : "-",
      orDash(t.createdBy),
      t.lastUsedAt ? timeText(t.lastUsedAt) : "never",
    ]),
    ctx.style,
  );
}

function roleOf(text: string | undefined): Role {
  const role = ROLES.find((r) => r === text);
  if (!role) throw usage(`--role: expected one of ${ROLES.join(", ")}${text ? `, not "${text}"` : ""}`);
  return role;
}

export const tokenCommands: Command[] = [
  {
    words: ["token", "list"],
    operands: [],
    options: [],
    summary:
      "the tokens: llmgw.yaml's and those created here, with roles, a client's models and limits, and last use (admin)",
    async run(ctx) {
      show(ctx, await ctx.answer(ctx.api.tokens.$get()), (tokens) => tokensTable(tokens, ctx));
      return 0;
    },
  },
  {
    words: ["token", "create"],
    operands: [],
    options: ["name", "role", "node", "models", "rpm", "concurrency", "tokens-per-day"],
    flags:
      "--name N --role viewer|operator|admin|agent|client [--node NODE] [--models A,B] [--rpm N] [--concurrency N] [--tokens-per-day N]",
    summary:
      "make a token and print it, once: the server keeps only its hash; an agent token speaks for --node, else for the node of its first heartbeat; a client token calls /v1 only, for --models (names or aliases; else every model), at most --rpm requests a minute, --concurrency at once and --tokens-per-day a UTC day (admin)",
    async run(ctx, _operands, values) {
      const created = await ctx.answer(ctx.api.tokens.$post({ json: creationOf(values) }));
      show(ctx, created, (t) =>
        keyValues(
          [
            ["name", t.name],
            ["role", t.role],
            ...(t.node === null ? [] : [["node", t.node] as const]),
            ...(t.role === "client"
              ? ([
                  ["models", t.models === null ? "all" : t.models.join(", ")],
                  ["limits", limitsText(t)],
                ] as const)
              : []),
            ["token", t.token],
          ],
          ctx.style,
        ),
      );
      if (!ctx.json)
        ctx.stderr.write("Store the token now: it is not shown again, and cannot be recovered.\n");
      return 0;
    },
  },
  {
    words: ["token", "revoke"],
    operands: ["NAME"],
    options: [],
    summary: "revoke a token: it and its browser sessions stop working at once (admin)",
    async run(ctx, operands) {
      const name = operand(operands, 0);
      await ctx.sent(ctx.api.tokens[":name"].$delete({ param: { name: segment(name) } }));
      show(ctx, { revoked: name }, () => `revoked ${name}\n`);
      return 0;
    },
  },
];
