import type { CreatedToken, TokenCreate, TokenView } from "@llmgw/contract";
import { DAY_MS, dayOf } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import type { Auth } from "./auth";
import { newToken, sha256Hex } from "./secrets";
import type { KnownToken } from "./tokenBook";

// What an admin does with tokens. Each change is audited (`by` the admin's token name) and none
// puts a secret or a hash into the audit, the events or a response other than the creation's.

/**
 * A token as listed: an agent token's node is the one it was made for, else the one it bound; a
 * client token's tokens today are those the engines reported (SPEC §12.3).
 */
const viewOf = (
  { sha256, ...view }: KnownToken,
  bound: string | null,
  usedToday: ReadonlyMap<string, number>,
): TokenView => ({
  ...view,
  node: view.node ?? bound,
  tokensUsedToday: view.role === "client" ? (usedToday.get(view.name) ?? 0) : null,
});

export async function listTokens(deps: Deps, auth: Auth): Promise<TokenView[]> {
  const now = deps.now().getTime();
  const [tokens, bindings, today] = await Promise.all([
    auth.tokens.list(),
    auth.agents.byToken(),
    // Today whole: its one day row per token (usage_days), written with the hours.
    deps.store.usage.sums(dayOf(now), dayOf(now) + DAY_MS, "token", "day"),
  ]);
  const usedToday = new Map(today.map((s) => [s.key, s.promptTokens + s.completionTokens]));
  return tokens.map((t) => {
    const binding = bindings.get(t.name);
    return viewOf(t, binding?.tokenSha256 === t.sha256 ? binding.node : null, usedToday);
  });
}

/**
 * Makes a token and returns it with its secret, shown this once. On a server without tokens the
 * first one must be an admin's: from then on every request needs a token, and one that cannot
 * manage tokens would leave nobody able to (short of editing llmgw.yaml and restarting).
 */
export async function createToken(
  deps: Deps,
  auth: Auth,
  { input, by }: { input: TokenCreate; by: string },
): Promise<CreatedToken> {
  if (auth.tokens.isConfigured(input.name)) {
    throw new AppError({
      code: "name_taken",
      message: `a token called ${input.name} is declared in llmgw.yaml`,
      fields: {
        name: "taken by a token in llmgw.yaml",
      },
    });
  }
  if (input.role !== "admin" && !(await auth.tokens.required())) {
    throw new AppError({
      code: "conflict",
      message:
        "the first token on a server without tokens must be an admin token: from then on every request needs one, and someone must be able to manage them",
      fields: { role: "the first token must be admin" },
    });
  }
  const node = input.node ?? null;
  const holder = node === null ? null : await auth.agents.holderOf(node);
  if (node !== null && holder !== null) {
    throw new AppError({
      code: "conflict",
      message: `node ${node} is bound to the agent token ${holder}; revoke it first`,
      fields: {
        node: "bound to another agent token",
      },
    });
  }
  const limits = {
    models: input.models ?? null,
    requestsPerMinute: input.requestsPerMinute ?? null,
    concurrency: input.concurrency ?? null,
    tokensPerDay: input.tokensPerDay ?? null,
  };
  const secret = newToken();
  const sha256 = sha256Hex(secret);
  const at = deps.now().toISOString();
  const stored = await deps.store.transaction(async (tx) => {
    const row = await tx.tokens.insert({
      name: input.name,
      role: input.role,
      sha256,
      createdAt: at,
      createdBy: by,
      node,
      ...limits,
    });
    if (!row) {
      throw new AppError({
        code: "name_taken",
        message: `a token called ${input.name} already exists; revoke it first`,
        fields: {
          name: "taken",
        },
      });
    }
    // The node is held from now on, before the agent's first beat; a stale binding (its token
    // gone) gives way, one made meanwhile by a live token wins.
    if (node !== null) {
      const stale = await tx.agentNodes.ofNode(node);
      if (stale) await tx.agentNodes.release(stale.tokenSha256);
      await tx.agentNodes.bind({ node, token: input.name, tokenSha256: sha256, boundAt: at });
    }
    await tx.audit.append([
      { at, by, action: "token.create", target: input.name, field: "role", before: null, after: input.role },
      // A budget is audited as every token change is (SPEC §12.3).
      ...(limits.tokensPerDay === null
        ? []
        : [
            {
              at,
              by,
              action: "token.create",
              target: input.name,
              field: "tokensPerDay",
              before: null,
              after: limits.tokensPerDay,
            },
          ]),
    ]);
    return row;
  });
  return {
    name: stored.name,
    role: input.role,
    origin: "runtime",
    createdAt: stored.createdAt,
    createdBy: stored.createdBy,
    lastUsedAt: null,
    node,
    ...limits,
    tokensUsedToday: input.role === "client" ? 0 : null,
    token: secret,
  };
}

/**
 * Revokes a token: it, and every session signed in with it, stop working at once; its open event
 * streams in this process are closed. Tokens of llmgw.yaml are refused (the file is their source).
 * A revocation that would leave tokens but no admin is refused too; revoking the very last token
 * returns the server to accepting every request, which it does only on loopback.
 */
export async function revokeToken(
  deps: Deps,
  auth: Auth,
  { name, by }: { name: string; by: string },
): Promise<void> {
  if (auth.tokens.isConfigured(name)) {
    throw new AppError({
      code: "declared_in_config",
      message: `the token ${name} is declared in llmgw.yaml; remove it there and restart to revoke it`,
    });
  }
  const all = await auth.tokens.list();
  const token = all.find((t) => t.name === name && t.origin === "runtime");
  if (!token) throw notFound(`a token called ${name}`);
  const rest = all.filter((t) => t !== token);
  if (token.role === "admin" && rest.length > 0 && !rest.some((t) => t.role === "admin")) {
    throw new AppError({
      code: "conflict",
      message: `${name} is the last admin token: revoke the others first, or create another admin token`,
    });
  }
  const at = deps.now().toISOString();
  const removed = await deps.store.transaction(async (tx) => {
    if (!(await tx.tokens.remove(name))) return false;
    // Its node is free for the agent token that replaces it.
    await tx.agentNodes.release(token.sha256);
    await tx.audit.append([
      { at, by, action: "token.revoke", target: name, field: "role", before: token.role, after: null },
    ]);
    return true;
  });
  if (!removed) throw notFound(`a token called ${name}`);
  auth.streams.endToken(name);
}
