import { secondsToNextUtcDay } from "@llmgw/domain";
import { StandInEngine } from "@llmgw/simulation";
import { openPostgres } from "@llmgw/store";
import { describeOnPostgres } from "@llmgw/store/testing";
import OpenAI from "openai";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { budgetedToken, send, useTwoServers, waitFor } from "./multi-kit";
import { SECRETS, tokensYaml } from "./security-kit";

// SPEC §12.3 across processes: two `llmgw serve` on one PostgreSQL hold one token's budget between
// them, with 40 clients of the official `openai` SDK at once, half on each. Every client sends
// until it is refused; what the answers reported must stay within the budget plus one reservation
// per process and reach 90% of it; the usage report must equal what was answered, exactly.

const BUDGET = 20_000;
const MAX_TOKENS = 100;
const CLIENTS = 40;
const MESSAGES = [{ role: "user" as const, content: "count these five words" }];
const REFUSAL = /^([\d,]+) of 20,000 tokens used today; this request may use up to ([\d,]+)$/;

type Outcome =
  | { used: number }
  | { status: number; code: unknown; retryAfter: string | null; message: string };

/** One client: sends until refused; what each answer reported, and the refusal. */
async function client(sdk: OpenAI, model: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (;;) {
    try {
      const answer = await sdk.chat.completions.create({ model, messages: MESSAGES, max_tokens: MAX_TOKENS });
      outcomes.push({ used: (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0) });
    } catch (err) {
      if (!(err instanceof OpenAI.APIError)) throw err;
      const retryAfter = err.headers?.get("retry-after") ?? null;
      outcomes.push({ status: err.status ?? 0, code: err.code, retryAfter, message: err.message });
      return outcomes;
    }
  }
}

describeOnPostgres("a token's budget on two processes (SPEC §12.3)", () => {
  const { servers, database } = useTwoServers({ yaml: tokensYaml() });

  it("lets 40 clients at once through to within the budget plus a reservation per process, and reports it exactly", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const engine = await StandInEngine.start({ replyTokens: MAX_TOKENS, tokensPerSecond: 50_000 });
    try {
      engine.knobs.delayMs = 5;
      const node = heartbeat();
      expect((await send(a.url, SECRETS.agent, "POST", "/api/v1/agents/heartbeat", node)).status).toBe(200);
      const model = modelInput({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
      expect((await send(a.url, SECRETS.admin, "POST", "/api/v1/models", model)).status).toBe(201);
      const placed = await waitFor("the leader to place the model", 20_000, async () => {
        const res = await send(a.url, SECRETS.admin, "GET", "/api/v1/fleet/replicas");
        const replicas = (await res.json()) as { id: string; model: string; node: string | null }[];
        return replicas.find((r) => r.model === model.name && r.node !== null);
      });
      const ready = { id: placed.id, model: model.name, state: "ready", endpoint: engine.url };
      const beat = await send(a.url, SECRETS.agent, "POST", "/api/v1/agents/heartbeat", {
        ...node,
        replicas: [ready],
      });
      expect(beat.status).toBe(200);
      const token = await budgetedToken(a.url, "shared", BUDGET);
      // Both processes see the replica ready before the clients start.
      for (const server of [a, b]) {
        await waitFor("the replica ready everywhere", 10_000, async () => {
          const res = await send(server.url, SECRETS.admin, "GET", "/api/v1/fleet/replicas");
          const replicas = (await res.json()) as { id: string; state: string }[];
          return replicas.find((r) => r.id === placed.id && r.state === "ready");
        });
      }

      const sdks = [a, b].map((s) => new OpenAI({ baseURL: `${s.url}/v1`, apiKey: token, maxRetries: 0 }));
      const outcomes = (
        await Promise.all(
          Array.from({ length: CLIENTS }, (_, i) => client(sdks[i % 2] as OpenAI, model.name)),
        )
      ).flat();

      const answered = outcomes.flatMap((o) => ("used" in o ? [o.used] : []));
      const refusals = outcomes.flatMap((o) => ("used" in o ? [] : [o]));
      const passed = answered.reduce((sum, n) => sum + n, 0);
      const body = JSON.stringify({ messages: MESSAGES, model: model.name, max_tokens: MAX_TOKENS });
      const reservation = Math.ceil(Buffer.byteLength(body) / 4) + MAX_TOKENS;

      expect(refusals).toHaveLength(CLIENTS);
      expect(passed).toBeLessThanOrEqual(BUDGET + 2 * reservation);
      expect(passed).toBeGreaterThanOrEqual(0.9 * BUDGET);
      const wait = secondsToNextUtcDay(Date.now());
      for (const refusal of refusals) {
        expect(refusal).toMatchObject({ status: 429, code: "budget_exceeded" });
        expect(Math.abs(Number(refusal.retryAfter) - wait)).toBeLessThanOrEqual(60);
        const numbers = REFUSAL.exec(refusal.message.replace(/^429 /, ""));
        expect(numbers, refusal.message).not.toBeNull();
        const [taken, may] = [numbers?.[1], numbers?.[2]].map((n) => Number(n?.replaceAll(",", "")));
        expect(may).toBe(reservation);
        // Refused only because what was taken leaves less than this request's reservation.
        expect(BUDGET - (taken ?? 0)).toBeLessThan(reservation);
      }

      // GET /usage (each process writes its counts within a second) equals the answered sum.
      const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
      const reported = await waitFor("the usage report to hold every answer", 10_000, async () => {
        const res = await send(
          b.url,
          SECRETS.admin,
          "GET",
          `/api/v1/usage?by=token&step=hour&from=${encodeURIComponent(hour)}`,
        );
        const rows = ((await res.json()) as { rows: Record<string, number | string>[] }).rows.filter(
          (r) => r.key === "shared",
        );
        const sum = rows.reduce((s, r) => s + Number(r.promptTokens) + Number(r.completionTokens), 0);
        const requests = rows.reduce((s, r) => s + Number(r.requests), 0);
        const refused = rows.reduce((s, r) => s + Number(r.refused), 0);
        // Both counts written (each process's second may land apart).
        return requests >= answered.length && refused >= CLIENTS ? { sum, requests, refused } : null;
      });
      expect(reported).toEqual({ sum: passed, requests: answered.length, refused: CLIENTS });
      const listed = (await (await send(a.url, SECRETS.admin, "GET", "/api/v1/tokens")).json()) as {
        name: string;
        tokensUsedToday: number | null;
      }[];
      expect(listed.find((t) => t.name === "shared")?.tokensUsedToday).toBe(passed);

      // The leases go back within a few seconds of the last request: the store holds what was used.
      const db = await openPostgres(database.url());
      try {
        const row = await waitFor("the leases returned", 10_000, async () => {
          const [r] = await db.query<{ used: string; leased: string }>(
            `select used, (select coalesce(sum(leased), 0) from budget_leases l
                           where l.token = b.token and l.day = b.day) as leased
             from token_budgets b where token = 'shared'`,
          );
          return r && Number(r.leased) === 0 ? r : null;
        });
        expect(Number(row.used)).toBe(passed);
      } finally {
        await db.close();
      }
    } finally {
      await engine.close();
    }
  }, 120_000);
});
