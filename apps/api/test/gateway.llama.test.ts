import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyLlamaGguf } from "../src/testing/ggufLlama";
import { type LlamaEngineProcess, startLlamaEngine } from "../src/testing/llamaProcess";
import { useGateway } from "./gateway-kit";

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
});
