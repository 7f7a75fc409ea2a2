import type { StandInEngine } from "@llmgw/simulation";
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { until, useGateway } from "./gateway-kit";

// Which replica answers (SPEC §7.1) and what happens when one fails or the client leaves (§7.5).

const gw = useGateway();
const ask = (model: string, options: { session?: string; signal?: AbortSignal } = {}) =>
  gw.client().chat.completions.create(
    { model, messages: [{ role: "user", content: "hi" }] },
    {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.session ? { headers: { "X-Session-Id": options.session } } : {}),
    },
  );
const counts = (engines: StandInEngine[]) => engines.map((e) => e.received.length);

describe("choosing a replica", () => {
  it("spreads requests over the ready replicas in turn when none is busier", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);

    for (let i = 0; i < 9; i++) await ask(model.name);

    expect(counts(engines)).toEqual([3, 3, 3]);
  });

  it("keeps a session on one replica (X-Session-Id, else the body's user)", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);

    for (let i = 0; i < 6; i++) await ask(model.name, { session: "conversation-1" });
    for (let i = 0; i < 6; i++)
      await gw.client().chat.completions.create({ model: model.name, messages: [], user: "someone" });

    const bySession = counts(engines);
    expect(bySession.filter((n) => n > 0).length).toBeLessThanOrEqual(2);
    expect(bySession.some((n) => n === 6 || n === 12)).toBe(true);
  });

  it("sends the busiest replica nothing more than its slots (--parallel); the rest wait", async () => {
    const model = await gw.model({ need: { args: ["--parallel", "2"] } });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    const release = engine.hold();

    const answers = [ask(model.name), ask(model.name), ask(model.name)];
    await until(
      () => engine.received.length === 2 && gw.now().models.get(model.name)?.queued === 1,
      "two sent, one queued",
    );
    expect(gw.now().models.get(model.name)).toMatchObject({ inFlight: 2, queued: 1 });
    release();
    await Promise.all(answers);

    expect(engine.received).toHaveLength(3);
  });

  it("moves a session off its replica when that one is full", async () => {
    const model = await gw.model({ need: { args: ["-np", "1"] } });
    const engines = [await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);
    const releases = engines.map((e) => e.hold());

    const answers = [ask(model.name, { session: "s" }), ask(model.name, { session: "s" })];
    await until(() => counts(engines).join() === "1,1", "one request on each replica");
    for (const release of releases) release();
    await Promise.all(answers);
  });
});

describe("failures", () => {
  it("retries a 503 before the first byte once, on another ready replica", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);
    for (const e of engines) e.knobs.failNext = [503];

    const err = await ask(model.name).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 503 });
    expect(counts(engines)).toEqual([1, 1]);
  });

  it("retries a dropped connection, and a 502, on the same replica when it is the only one", async () => {
    const model = await gw.model();
    const engine = await gw.engine({ replyTokens: 2 });
    await gw.ready(model, [engine]);

    engine.knobs.failNext = ["drop"];
    const afterDrop = await ask(model.name);
    engine.knobs.failNext = [502];
    const after502 = await ask(model.name);

    expect(afterDrop.choices[0]?.message.content).toBe("word0 word1");
    expect(after502.choices[0]?.message.content).toBe("word0 word1");
    expect(engine.received).toHaveLength(4);
  });

  it("ends a stream that fails after its first byte with an error event", async () => {
    const model = await gw.model();
    const engine = await gw.engine({ replyTokens: 6 });
    await gw.ready(model, [engine]);
    engine.knobs.breakAfterTokens = 2;

    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: model.name, messages: [], stream: true }),
    });
    const text = await res.text();

    expect(res.status).toBe(200);
    expect(text).toContain("word1");
    expect(text).toMatch(
      /data: \{"error":\{"message":"[^"]+","type":"server_error","code":"upstream_failed"/,
    );
    expect(engine.received).toHaveLength(1);
  });

  it("aborts the upstream request at once when the client goes away mid-stream", async () => {
    const model = await gw.model();
    const engine = await gw.engine({ replyTokens: 1000, tokensPerSecond: 50 });
    await gw.ready(model, [engine]);
    const leaving = new AbortController();

    const stream = await gw
      .client()
      .chat.completions.create({ model: model.name, messages: [], stream: true }, { signal: leaving.signal });
    let chunks = 0;
    // The SDK ends the iteration quietly when its own signal aborts it.
    await (async () => {
      for await (const _ of stream) if (++chunks === 3) leaving.abort();
    })().catch(() => undefined);

    await engine.closedCount(1);
    await until(() => gw.outcomes.length === 1, "the request to end");
    expect(gw.outcomes[0]).toMatchObject({ status: 499 });
    expect(gw.now().models.get(model.name)?.inFlight).toBe(0);
  });
});
