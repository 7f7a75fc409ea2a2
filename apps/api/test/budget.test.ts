import { budgetRefusalMessage, secondsToNextUtcDay } from "@llmgw/domain";
import OpenAI, { type APIError } from "openai";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/auth/secrets";
import type { Role } from "../src/config";
import { startUsageRecorder } from "../src/usage/recorder";
import { useGateway } from "./gateway-kit";
import { errorOf } from "./harness";
import { parsePage, sampleValue } from "./prometheus";
import { requestAs, SECRETS, storeDump, tokensYaml } from "./security-kit";

// Token budgets (SPEC §12.3) in one process, on the file's store (PGlite, and PostgreSQL in the
// postgres project): `tokensPerDay` through the API and llmgw.yaml, reservations refused with the
// numbers, settlement with what the engine reported, and the day's reset at 00:00 UTC.

const CONFIG_BUDGET_SECRET = "llmgw_cfg-budgeted-secret-0123456789abcdef";
const yaml = `${tokensYaml()}  - { name: cfg-budgeted, role: client, sha256: ${sha256Hex(CONFIG_BUDGET_SECRET)}, tokensPerDay: 777 }\n`;
const gw = useGateway({ yaml, adminToken: SECRETS.admin });
const { api } = gw;
let sequence = 0;
const fresh = (prefix: string) => `${prefix}-${++sequence}`;
const MESSAGES = [{ role: "user" as const, content: "count these five words" }];

const create = (body: Record<string, unknown>) =>
  requestAs(api.app, SECRETS.admin, "POST", "/api/v1/tokens", body);

async function budgeted(tokensPerDay: number): Promise<{ name: string; client: OpenAI }> {
  const name = fresh("app");
  const res = await create({ name, role: "client", tokensPerDay });
  expect(res.status, await res.clone().text()).toBe(201);
  const { token } = (await res.json()) as { token: string };
  return { name, client: gw.client({ apiKey: token }) };
}

async function listed(name: string): Promise<Record<string, unknown> | undefined> {
  const res = await requestAs(api.app, SECRETS.admin, "GET", "/api/v1/tokens");
  return ((await res.json()) as Record<string, unknown>[]).find((t) => t.name === name);
}

/** The body the SDK sends for these messages, as the gateway reads its size. */
const reservationFor = (model: string, maxTokens: number) =>
  Math.ceil(Buffer.byteLength(JSON.stringify({ messages: MESSAGES, model, max_tokens: maxTokens })) / 4) +
  maxTokens;

/** Sends one chat completion; its answer's usage, or the refusal. */
async function ask(
  client: OpenAI,
  model: string,
  maxTokens: number,
): Promise<{ used: number } | { refused: APIError }> {
  try {
    const answer = await client.chat.completions.create({ model, messages: MESSAGES, max_tokens: maxTokens });
    return { used: (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0) };
  } catch (err) {
    if (err instanceof OpenAI.APIError) return { refused: err };
    throw err;
  }
}

describe("tokensPerDay on a token (SPEC §12.3)", () => {
  it("is kept on a client token, listed with tokensUsedToday, and audited", async () => {
    const name = fresh("app");
    const res = await create({ name, role: "client", tokensPerDay: 20_000 });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name, tokensPerDay: 20_000, tokensUsedToday: 0 });
    expect(await listed(name)).toMatchObject({ tokensPerDay: 20_000, tokensUsedToday: 0 });
    const entries = await api.deps.store.audit.list({ model: name });
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: "token.create",
          field: "tokensPerDay",
          before: null,
          after: 20_000,
        }),
      ]),
    );
    expect(await listed("cfg-viewer")).toMatchObject({ tokensPerDay: null, tokensUsedToday: null });
    expect(await listed("cfg-budgeted")).toMatchObject({ tokensPerDay: 777, origin: "config" });
  });

  it.each([
    ["zero", 0],
    ["a negative number", -5],
    ["a fraction", 1.5],
    ["text", "20000"],
    ["more than a trillion", 1_000_000_000_001],
  ])("refuses %s (400 naming tokensPerDay, nothing stored)", async (_what, tokensPerDay) => {
    const before = await storeDump(api.deps, api.control);
    const error = await errorOf(await create({ name: fresh("bad"), role: "client", tokensPerDay }), 400);
    expect(Object.keys(error.fields ?? {})).toEqual(["tokensPerDay"]);
    expect(await storeDump(api.deps, api.control)).toBe(before);
  });

  it.each(["viewer", "operator", "admin", "agent"] satisfies Role[])(
    "refuses a budget on a %s token",
    async (role) => {
      const before = await storeDump(api.deps, api.control);
      const error = await errorOf(await create({ name: fresh(role), role, tokensPerDay: 100 }), 400);
      expect(error.fields).toEqual({ tokensPerDay: "only a client token has a budget of tokens" });
      expect(await storeDump(api.deps, api.control)).toBe(before);
    },
  );
});

describe("a budgeted token on the request path (SPEC §12.3)", () => {
  it("is refused with 429 budget_exceeded, Retry-After to the next UTC day, and the numbers", async () => {
    const engine = await gw.engine({ replyTokens: 50, tokensPerSecond: 100_000 });
    const model = await gw.model();
    await gw.ready(model, [engine]);
    const reservation = reservationFor(model.name, 50);
    const budget = 10 * reservation;
    const { name, client } = await budgeted(budget);
    const at = Date.parse("2026-03-01T23:58:20.000Z");
    api.deps.now = () => new Date(at);

    let used = 0;
    let refusal: APIError | null = null;
    for (let i = 0; i < 50 && refusal === null; i += 1) {
      const result = await ask(client, model.name, 50);
      if ("refused" in result) refusal = result.refused;
      else used += result.used;
    }

    expect(refusal?.status).toBe(429);
    expect(refusal?.code).toBe("budget_exceeded");
    expect(refusal?.headers?.get("retry-after")).toBe(String(secondsToNextUtcDay(at)));
    expect(secondsToNextUtcDay(at)).toBe(100);
    // Each answer used less than it reserved; what is left now is less than one reservation.
    expect(used).toBeLessThanOrEqual(budget);
    expect(budget - used).toBeLessThan(reservation);
    expect(refusal?.message).toContain(budgetRefusalMessage(used, budget, reservation));
    // Counted as refused, and on /metrics.
    const page = parsePage(
      await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.admin}` } })
      ).text(),
    );
    expect(sampleValue(page, "llmgw_budget_refusals_total", { token: name })).toBe(1);
    // GET /tokens: the tokens the engines reported today, once the usage recorder wrote them.
    const recorder = startUsageRecorder(api.deps, api.control.runtime, gw.usage(), { intervalMs: 3_600_000 });
    await recorder.stop();
    expect(await listed(name)).toMatchObject({ tokensPerDay: budget, tokensUsedToday: used });
  });

  it("resets at 00:00 UTC (an injected clock)", async () => {
    const engine = await gw.engine({ replyTokens: 30, tokensPerSecond: 100_000 });
    const model = await gw.model();
    await gw.ready(model, [engine]);
    const { client } = await budgeted(reservationFor(model.name, 30) + 10);
    let at = Date.parse("2026-06-30T23:59:59.000Z");
    api.deps.now = () => new Date(at);

    expect(await ask(client, model.name, 30)).toHaveProperty("used");
    const refused = await ask(client, model.name, 30);
    expect(refused).toHaveProperty("refused");
    expect("refused" in refused && refused.refused.headers?.get("retry-after")).toBe("1");

    at = Date.parse("2026-07-01T00:00:00.000Z");
    expect(await ask(client, model.name, 30)).toHaveProperty("used");
    expect(await ask(client, model.name, 30)).toHaveProperty("refused");
  });

  it("reserves the model's maxOutput when the request sets no max_tokens, and lets a token without a budget be", async () => {
    const engine = await gw.engine({ replyTokens: 5, tokensPerSecond: 100_000 });
    const model = await gw.model({ maxOutput: 1000 });
    await gw.ready(model, [engine]);
    const { client } = await budgeted(900);
    const refused = await client.chat.completions.create({ model: model.name, messages: MESSAGES }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((refused as Error).message).toMatch(
      /0 of 900 tokens used today; this request may use up to 1,0\d\d/,
    );

    const name = fresh("free");
    const res = await create({ name, role: "client" });
    const free = gw.client({ apiKey: ((await res.json()) as { token: string }).token });
    await expect(
      free.chat.completions.create({ model: model.name, messages: MESSAGES }),
    ).resolves.toBeTruthy();
  });

  it("holds a token from llmgw.yaml to its budget", async () => {
    const engine = await gw.engine({ replyTokens: 5, tokensPerSecond: 100_000 });
    const model = await gw.model();
    await gw.ready(model, [engine]);
    const client = gw.client({ apiKey: CONFIG_BUDGET_SECRET });
    await expect(
      client.chat.completions.create({ model: model.name, messages: MESSAGES, max_tokens: 800 }),
    ).rejects.toMatchObject({ status: 429, code: "budget_exceeded" });
    await expect(
      client.chat.completions.create({ model: model.name, messages: MESSAGES, max_tokens: 5 }),
    ).resolves.toBeTruthy();
  });
});
