import { describe, expect, it } from "vitest";
import { KEPT_BYTES, MAX_LINE_BYTES, UsageCounter } from "./usage";

// Counting `usage` as an answer passes (SPEC §7.7), holding a bounded part of it (SPEC §7.5a).

function counted(streaming: boolean, chunks: (string | Buffer)[]) {
  const counter = new UsageCounter(streaming);
  for (const chunk of chunks) counter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return counter.usage;
}

/** `text` cut into pieces of `size` bytes, as a socket might deliver it. */
const pieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const reply = (extra: Record<string, unknown>) =>
  JSON.stringify({ id: "x", choices: [{ message: { content: "hi" } }], ...extra });

describe("UsageCounter on a JSON answer", () => {
  it("reads usage from a small answer, in one chunk or many", () => {
    const text = reply({ usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } });
    expect(counted(false, [text])).toEqual({ promptTokens: 3, completionTokens: 5 });
    expect(counted(false, pieces(text, 7))).toEqual({ promptTokens: 3, completionTokens: 5 });
  });

  it("reads usage at the end of an answer far larger than what it keeps", () => {
    const big = "e".repeat(5 * KEPT_BYTES);
    const text = reply({ data: big, usage: { prompt_tokens: 1000, completion_tokens: 0 } });
    expect(counted(false, pieces(text, 16 * 1024))).toEqual({ promptTokens: 1000, completionTokens: 0 });
  });

  it("reads usage at the start of a large answer when its end has none", () => {
    const text = JSON.stringify({
      usage: { prompt_tokens: 9, completion_tokens: 1 },
      data: "e".repeat(5 * KEPT_BYTES),
    });
    expect(counted(false, pieces(text, 16 * 1024))).toEqual({ promptTokens: 9, completionTokens: 1 });
  });

  it("is not fooled by the word inside a string, and has none for an answer without it", () => {
    const text = reply({ note: 'a "usage": {"prompt_tokens": 99} in prose' });
    expect(counted(false, [text])).toEqual({ promptTokens: null, completionTokens: null });
    expect(counted(false, ["not json at all"])).toEqual({ promptTokens: null, completionTokens: null });
  });

  it("keeps counts that are not numbers out", () => {
    expect(counted(false, [reply({ usage: { prompt_tokens: "3", completion_tokens: 4 } })])).toEqual({
      promptTokens: null,
      completionTokens: 4,
    });
  });
});

describe("UsageCounter on an event stream", () => {
  const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

  it("takes the last data event carrying usage, wherever the chunks split it", () => {
    const text = [
      event({ choices: [{ delta: { content: "a" } }] }),
      event({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
      event({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 6 } }),
      "data: [DONE]\n\n",
    ].join("");
    for (const size of [1, 3, 17, text.length])
      expect(counted(true, pieces(text, size)), `pieces of ${size}`).toEqual({
        promptTokens: 4,
        completionTokens: 6,
      });
  });

  it("reads lines ending in CRLF, and only data lines", () => {
    const text = `event: x\r\nid: {"usage":{"prompt_tokens":50}}\r\ndata: {"usage":{"prompt_tokens":2,"completion_tokens":3}}\r\n\r\n`;
    expect(counted(true, [text])).toEqual({ promptTokens: 2, completionTokens: 3 });
  });

  it("skips a line over the bound, however it ends, and counts the lines after it", () => {
    const huge = `data: {"usage":{"prompt_tokens":1000,"completion_tokens":1000},"pad":"${"x".repeat(MAX_LINE_BYTES)}"}\n\n`;
    const before = event({ usage: { prompt_tokens: 7, completion_tokens: 11 } });
    const after = event({ usage: { prompt_tokens: 8, completion_tokens: 12 } });
    expect(counted(true, [before, ...pieces(huge, 64 * 1024)])).toEqual({
      promptTokens: 7,
      completionTokens: 11,
    });
    expect(counted(true, [before, huge])).toEqual({ promptTokens: 7, completionTokens: 11 });
    expect(counted(true, [before, ...pieces(huge, 64 * 1024), after])).toEqual({
      promptTokens: 8,
      completionTokens: 12,
    });
  });

  it("has none for a stream without usage or content", () => {
    expect(counted(true, [event({ choices: [] }), "data: [DONE]\n\n"])).toEqual({
      promptTokens: null,
      completionTokens: null,
    });
  });

  it("counts non-empty content chunks as completion tokens when the stream has no usage (SPEC §12.1)", () => {
    const text = [
      event({ choices: [{ delta: { role: "assistant", content: "" } }] }),
      event({ choices: [{ delta: { content: "Hel" } }] }),
      'data: {"choices":[{"delta":{"content" : "lo \\"content\\": x"}}]}\n\n',
      event({ choices: [{ delta: { content: null }, finish_reason: "stop" }] }),
      event({ choices: [{ text: " world" }, { text: "!" }] }),
      "data: [DONE]\n\n",
    ].join("");
    for (const size of [1, 5, text.length])
      expect(counted(true, pieces(text, size)), `pieces of ${size}`).toEqual({
        promptTokens: null,
        completionTokens: 4,
      });
    // The engine's own numbers win when it reports them.
    const reported = `${text}${event({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3 } })}`;
    expect(counted(true, [reported])).toEqual({ promptTokens: 2, completionTokens: 3 });
  });
});
