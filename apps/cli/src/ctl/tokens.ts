import type { Role, TokenView } from "@llmgw/api";
import { usage } from "./args";
import { type Command, type Ctx, operand, show } from "./command";
import { keyValues, orDash, table, timeText } from "./table";

const ROLES: readonly Role[] = ["viewer", "operator", "admin", "agent"];

function tokensTable(tokens: TokenView[], ctx: Ctx): string {
  return table(
    [
      { header: "NAME" },
      { header: "ROLE" },
      { header: "NODE" },
      { header: "ORIGIN" },
      { header: "CREATED (UTC)" },
      { header: "BY" },
      { header: "LAST-USED (UTC)" },
    ],
    tokens.map((t) => [
      t.name,
      t.role,
      t.role === "agent" ? (t.node ?? "(first beat)") : "-",
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
    summary: "the tokens: llmgw.yaml's and those created here, with roles and last use (admin)",
    async run(ctx) {
      show(ctx, await ctx.api.listTokens(), (tokens) => tokensTable(tokens, ctx));
      return 0;
    },
  },
  {
    words: ["token", "create"],
    operands: [],
    options: ["name", "role", "node"],
    flags: "--name N --role viewer|operator|admin|agent [--node NODE]",
    summary:
      "make a token and print it, once: the server keeps only its hash; an agent token speaks for --node, else for the node of its first heartbeat (admin)",
    async run(ctx, _operands, values) {
      if (values.name === undefined) throw usage("token create: --name is required");
      const created = await ctx.api.createToken(values.name, roleOf(values.role), values.node);
      show(ctx, created, (t) =>
        keyValues(
          [
            ["name", t.name],
            ["role", t.role],
            ...(t.node === null ? [] : [["node", t.node] as [string, string]]),
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
      await ctx.api.revokeToken(name);
      show(ctx, { revoked: name }, () => `revoked ${name}\n`);
      return 0;
    },
  },
];
