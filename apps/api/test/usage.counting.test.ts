import type { UsageRow } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { startUsageRecorder } from "../src/usage/recorder";
import { useGateway } from "./gateway-kit";
import { parsePage, sampleValue } from "./prometheus";
import { SECRETS, tokensYaml } from "./security-kit";

// SPEC §12.1 on the file's store (PGlite, and PostgreSQL in the postgres project): real requests
// from the official `openai` SDK through the gateway to stand-in engines, counted per hour, model,
// client token and owner, written by the recorder, and read back from the store.

const gw = useGateway({ yaml: tokensYaml(), adminToken: SECRETS.admin });
const { api } = gw;
const MESSAGES = [{ role: "user" as const, content: "count these five words" }];

async function clientToken(name: string): Promise<string> {
  const res = await api.app.request("/api/v1/tokens", {
    method: "POST",
    headers: { authorization: `Bearer ${SECRETS.admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name, role: "client" }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/** Writes what the gateway counted (as the recorder's second would) and reads every stored row. */
async function stored(): Promise<UsageRow[]> {
  const recorder = startUsageRecorder(api.deps, api.control.runtime, gw.usage(), { intervalMs: 3_600_000 });
  await recorder.stop();
  return api.deps.store.usage.between(0, Date.now() + 3_600_000);
}

const rowOf = (rows: UsageRow[], model: string, token: string) =>
  rows.filter((r) => r.model === model && r.token === token);

describe("usage counting (SPEC §12.1)", () => {
  it("counts what the engine reported, streamed and not, asked for usage or not", async () => {
    const engine = await gw.engine({ replyTokens: 7, tokensPerSecond: 10_000 });
    const model = await gw.model({ owner: "team-a" });
    await gw.ready(model, [engine]);
    const alice = gw.client({ apiKey: await clientToken("alice") });
    const bob = gw.client({ apiKey: await clientToken("bob") });

    const plain = await alice.chat.completions.create({ model: model.name, messages: MESSAGES });
    const asked = await alice.chat.completions.create({
      model: model.name,
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    });
    const askedChunks = [];
    for await (const chunk of asked) askedChunks.push(chunk);
    const silent = await bob.chat.completions.create({ model: model.name, messages: MESSAGES, stream: true });
    const silentChunks = [];
    for await (const chunk of silent) silentChunks.push(chunk);

    const reported = plain.usage;
    expect(reported?.completion_tokens).toBe(7);
    expect(askedChunks.at(-1)?.usage).toMatchObject({
      prompt_tokens: reported?.prompt_tokens,
      completion_tokens: 7,
    });
    // Bob did not ask: the engine was asked for him, and he sees no usage chunk, only content.
    expect(engine.received.at(-1)?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(silentChunks.some((c) => c.usage)).toBe(false);
    expect(silentChunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(silentChunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(
      plain.choices[0]?.message.content,
    );

    const rows = await stored();
    const prompt = reported?.prompt_tokens ?? -1;
    expect(rowOf(rows, model.name, "alice")).toEqual([
      expect.objectContaining({
        owner: "team-a",
        requests: 2,
        refused: 0,
        failed: 0,
        promptTokens: 2 * prompt,
        cachedTokens: 0,
        completionTokens: 14,
      }),
    ]);
    expect(rowOf(rows, model.name, "bob")).toEqual([
      expect.objectContaining({ requests: 1, promptTokens: prompt, completionTokens: 7, failed: 0 }),
    ]);
    // SPEC §12.4: the same counts on /metrics.
    const page = parsePage(
      await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.admin}` } })
      ).text(),
    );
    const series = { model: model.name, token: "alice", owner: "team-a" };
    expect(sampleValue(page, "llmgw_usage_tokens_total", { ...series, kind: "completion" })).toBe(14);
    expect(sampleValue(page, "llmgw_usage_tokens_total", { ...series, kind: "prompt" })).toBe(2 * prompt);
    const hour = rows[0]?.hour ?? 0;
    expect(hour % 3_600_000).toBe(0);
    expect(Date.now() - hour).toBeLessThan(3_600_000 + 60_000);
  });

  it("counts refused and failed requests apart", async () => {
    const engine = await gw.engine({ replyTokens: 20, tokensPerSecond: 10_000 });
    const model = await gw.model();
    await gw.ready(model, [engine]);
    const carol = gw.client({ apiKey: await clientToken("carol") });

    // Refused by llmgw itself: a model it does not know.
    await expect(
      carol.chat.completions.create({ model: "no-such-model", messages: MESSAGES }),
    ).rejects.toMatchObject({
      status: 404,
    });
    // Failed: the stream breaks mid-answer (an error event ends it).
    engine.knobs.breakAfterTokens = 3;
    const broken = await carol.chat.completions.create({
      model: model.name,
      messages: MESSAGES,
      stream: true,
    });
    await expect(
      (async () => {
        for await (const _ of broken);
      })(),
    ).rejects.toThrow();
    engine.knobs.breakAfterTokens = null;
    // And one that went well.
    await carol.chat.completions.create({ model: model.name, messages: MESSAGES });

    const rows = await stored();
    expect(rowOf(rows, "-", "carol")).toEqual([
      expect.objectContaining({ owner: "-", requests: 0, refused: 1, failed: 0 }),
    ]);
    // The broken stream reported no usage: its 3 content chunks count as its completion (§12.1).
    expect(rowOf(rows, model.name, "carol")).toEqual([
      expect.objectContaining({ requests: 2, refused: 0, failed: 1, completionTokens: 20 + 3 }),
    ]);
  });

  it("counts a stream's content chunks as completion tokens when its engine reports no usage", async () => {
    const engine = await gw.engine({ replyTokens: 9, tokensPerSecond: 10_000, streamUsage: false });
    const model = await gw.model({ owner: "team-q" });
    await gw.ready(model, [engine]);
    const dave = gw.client({ apiKey: await clientToken("dave") });

    for (const asked of [true, false]) {
      const stream = await dave.chat.completions.create({
        model: model.name,
        messages: MESSAGES,
        stream: true,
        ...(asked ? { stream_options: { include_usage: true } } : {}),
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.some((c) => c.usage)).toBe(false);
      expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(9);
    }
    expect(engine.received.every((r) => (r.body as { stream_options?: unknown }).stream_options)).toBe(true);

    expect(rowOf(await stored(), model.name, "dave")).toEqual([
      expect.objectContaining({ owner: "team-q", requests: 2, promptTokens: 0, completionTokens: 18 }),
    ]);
  });

  it("sums what several writes add to one hour, and keeps 400 days", async () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const row = (n: number, at = hour): UsageRow => ({
      hour: at,
      model: "m",
      token: "t",
      owner: "o",
      requests: n,
      refused: 0,
      failed: 0,
      promptTokens: 10 * n,
      cachedTokens: n,
      completionTokens: 5 * n,
    });
    const old = hour - 401 * 24 * 3_600_000;
    await api.deps.store.usage.add([row(1), row(1, old)]);
    await api.deps.store.usage.add([row(2)]);

    expect(await api.deps.store.usage.between(hour, hour + 1)).toEqual([row(3)]);
    // The old hour and its day go; the current ones stay.
    expect(await api.deps.store.usage.prune(hour - 400 * 24 * 3_600_000)).toBe(2);
    expect(await api.deps.store.usage.between(0, hour)).toEqual([]);
  });
});
