import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { until, useGateway } from "./gateway-kit";

// The request path (SPEC §7) through the official `openai` SDK: answers pass through from a ready
// replica, streams arrive chunk by chunk, and the catalogue is listed in OpenAI's shape.

const gw = useGateway();

describe("POST /v1/chat/completions", () => {
  it("answers from a ready replica, passing the body through byte for byte", async () => {
    const model = await gw.model({ aliases: [] });
    const engine = await gw.engine({ replyTokens: 3 });
    await gw.ready(model, [engine]);

    const reply = await gw.client().chat.completions.create({
      model: model.name,
      messages: [{ role: "user", content: "say three words" }],
    });

    expect(reply.choices[0]?.message.content).toBe("word0 word1 word2");
    expect(reply.usage).toMatchObject({ completion_tokens: 3 });
    const [received] = engine.received;
    expect(received).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(received?.body).toEqual({
      model: model.name,
      messages: [{ role: "user", content: "say three words" }],
    });
    expect(received?.headers.authorization, "llmgw's credentials stay with llmgw").toBeUndefined();
    expect(gw.outcomes).toEqual([
      expect.objectContaining({
        model: model.name,
        token: "local",
        status: 200,
        promptTokens: 3,
        completionTokens: 3,
      }),
    ]);
  });

  it("takes an alias for the model and reaches the engine under the name the client sent", async () => {
    const model = await gw.model({ aliases: [`alias-${Date.now()}`] });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    const alias = model.aliases[0] ?? "";

    await gw.client().chat.completions.create({ model: alias, messages: [{ role: "user", content: "hi" }] });

    expect(engine.received[0]?.body).toMatchObject({ model: alias });
  });

  it("streams: chunks reach the client one by one as the engine writes them, usage included", async () => {
    const model = await gw.model();
    const engine = await gw.engine({ replyTokens: 5, tokensPerSecond: 20 });
    await gw.ready(model, [engine]);

    const stream = await gw.client().chat.completions.create({
      model: model.name,
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const arrivals: number[] = [];
    const words: string[] = [];
    for await (const chunk of stream) {
      arrivals.push(performance.now());
      words.push(chunk.choices[0]?.delta.content ?? "");
    }

    expect(words.join("")).toBe("word0 word1 word2 word3 word4");
    // At 20 tokens a second the five tokens span ~200 ms; buffered, they would arrive together.
    const first = arrivals[1] ?? 0;
    const last = arrivals[5] ?? 0;
    expect(last - first).toBeGreaterThan(120);
    await until(() => gw.outcomes.length === 1, "the request to end");
    expect(gw.outcomes[0]).toMatchObject({ status: 200, promptTokens: 1, completionTokens: 5 });
    expect(gw.outcomes[0]?.firstByteMs).toBeLessThan(gw.outcomes[0]?.durationMs ?? 0);
  });

  it("sends stream headers the proxies in between honour", async () => {
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);

    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: model.name, messages: [], stream: true }),
    });

    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(await res.text()).toMatch(/data: \[DONE\]/);
  });
});

describe("the body", () => {
  it("reaches the engine byte for byte, spacing and number spelling included", async () => {
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    const text = `{ "model" : "${model.name}",\n  "messages": [ ] , "temperature": 1.50, "x-extra": "é\u00e9" }`;

    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });

    expect(res.status).toBe(200);
    expect(engine.received[0]?.text).toBe(text);
  });
});

describe("other endpoints", () => {
  it("routes embeddings and completions", async () => {
    const model = await gw.model({ routingProfile: "embedding" });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);

    const embedded = await gw.client().embeddings.create({ model: model.name, input: ["a b", "c"] });
    const completed = await gw.client().completions.create({ model: model.name, prompt: "once" });

    expect(embedded.data).toHaveLength(2);
    expect(embedded.usage.prompt_tokens).toBe(3);
    expect(completed.choices[0]?.text).toMatch(/^word0/);
    expect(engine.received.map((r) => r.path)).toEqual(["/v1/embeddings", "/v1/completions"]);
  });

  it("routes any other POST naming a model to the same path on the engine", async () => {
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);

    const res = await fetch(`${gw.url}/v1/rerank?top=2`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: model.name, query: "q" }),
    });

    expect(res.status).toBe(404);
    expect(engine.received[0]).toMatchObject({ path: "/v1/rerank", body: { model: model.name, query: "q" } });
  });
});

describe("GET /v1/models", () => {
  it("lists every model not stopped, once, with its aliases", async () => {
    const alias = `al-${Date.now()}`;
    const served = await gw.model({ aliases: [alias] });
    const stopped = await gw.model({ scaling: { min: 0, max: 0 } });

    const ids: string[] = [];
    for await (const m of gw.client().models.list()) ids.push(m.id);
    const one = await gw.client().models.retrieve(alias);

    expect(ids).toContain(served.name);
    expect(ids).not.toContain(stopped.name);
    expect(ids.filter((id) => id === served.name)).toHaveLength(1);
    expect(one).toMatchObject({ id: served.name, object: "model", llmgw: { aliases: [alias] } });
  });

  it("is a 404 model_not_found for a name no model has", async () => {
    const err = await gw
      .client()
      .models.retrieve("no-such-model")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 404, code: "model_not_found" });
  });
});
