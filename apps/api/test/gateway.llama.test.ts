import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "@llmgw/client/bench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useGateway } from "./gateway-kit";
import { writeTinyLlamaGguf } from "./kit/ggufLlama";
import { type LlamaEngineProcess, startLlamaEngine } from "./kit/llamaProcess";

// Real inference through the gateway: a tiny llama GGUF (random weights, so gibberish) run by a
// real llama.cpp in the test engine process, reached through the official `openai` SDK. What it
// proves is that generated text and the engine's own token counts reach the client and the meter.

let root = "";
let starting: Promise<LlamaEngineProcess> | undefined;
let engine: LlamaEngineProcess | undefined;

// The engine loads while the gateway's store is made: started here, awaited after useGateway's hooks.
beforeAll(() => {
  starting = (async () => {
    root = await mkdtemp(join(tmpdir(), "llmgw-llama-"));
    const file = join(root, "tiny.gguf");
    await writeTinyLlamaGguf(file);
    return startLlamaEngine(file);
  })();
  // Seen by the awaiting hook below; this keeps a failure from being reported twice.
  starting.catch(() => {});
});
const gw = useGateway();
beforeAll(async () => {
  engine = await starting;
}, 60_000);

afterAll(async () => {
  await engine?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function readyModel() {
  if (!engine) throw new Error("the engine did not start");
  const model = await gw.model();
  await gw.ready(model, [engine]);
  return model;
}

const ask = { messages: [{ role: "user" as const, content: "hello" }], max_tokens: 8, temperature: 0 };

describe("a real llama.cpp behind the gateway", () => {
  it("answers a chat completion with generated text and the engine's token counts", async () => {
    const model = await readyModel();

    const reply = await gw.client().chat.completions.create({ model: model.name, ...ask });

    expect(reply.choices[0]?.message.content).toBeTruthy();
    expect(reply.choices[0]?.finish_reason).toBe("length");
    expect(reply.usage?.completion_tokens).toBe(8);
    expect(reply.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(gw.outcomes).toEqual([
      expect.objectContaining({
        model: model.name,
        status: 200,
        promptTokens: reply.usage?.prompt_tokens,
        completionTokens: 8,
      }),
    ]);
  });

  it("streams the same greedy reply chunk by chunk, with the usage last", async () => {
    const model = await readyModel();
    const whole = await gw.client().chat.completions.create({ model: model.name, ...ask });

    const stream = await gw.client().chat.completions.create({
      model: model.name,
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    const pieces = chunks.map((c) => c.choices[0]?.delta.content ?? "").filter((piece) => piece !== "");
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(whole.choices[0]?.message.content);
    expect(chunks.at(-1)?.usage).toEqual(whole.usage);
  });

  it("benches through the gateway: tokens per second from the engine's own usage", async () => {
    const model = await readyModel();

    const result = await runBench({
      model: model.name,
      concurrency: [1, 2],
      requests: 3,
      maxTokens: 8,
      promptTokens: 16,
      send: (body, signal) =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal,
        }),
      replicas: async () => (await gw.api.deps.world.snapshot()).replicasByModel.get(model.name) ?? [],
    });

    expect(result.runs.map((r) => [r.concurrency, r.requests, r.errors])).toEqual([
      [1, 3, 0],
      [2, 3, 0],
    ]);
    for (const run of result.runs) {
      expect(run.tokensPerSecond).toBeGreaterThan(0);
      expect(run.ttftMs.p50).toBeGreaterThan(0);
    }
    // Every measured request's tokens were llama.cpp's count, which the gateway read as they passed.
    const measured = gw.outcomes.filter((o) => o.model === model.name).slice(1);
    expect(measured.map((o) => o.completionTokens)).toEqual([8, 8, 8, 8, 8, 8]);
  });
});
