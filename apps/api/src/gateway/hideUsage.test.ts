import { describe, expect, it } from "vitest";
import { UsageChunkFilter } from "./hideUsage";

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const content = (text: string) =>
  event({ object: "chat.completion.chunk", choices: [{ delta: { content: text } }], usage: null });
const usageOnly = event({
  object: "chat.completion.chunk",
  choices: [],
  usage: { prompt_tokens: 3, completion_tokens: 2 },
});
const STREAM = `${content("a")}${content("b")}${usageOnly}data: [DONE]\n\n`;
const WITHOUT = `${content("a")}${content("b")}data: [DONE]\n\n`;

function through(pieces: string[]): string {
  const filter = new UsageChunkFilter();
  const out = pieces.map((p) => filter.push(Buffer.from(p)).toString()).join("");
  return out + filter.end().toString();
}

describe("UsageChunkFilter", () => {
  it("leaves out the usage-only event however the chunks split the stream", () => {
    for (const size of [1, 2, 7, 33, STREAM.length]) {
      const pieces: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) pieces.push(STREAM.slice(i, i + size));
      expect(through(pieces), `pieces of ${size}`).toBe(WITHOUT);
    }
  });

  it("keeps content events that carry usage: null, and an unfinished last event", () => {
    expect(through([`${content("x")}data: {"partial"`])).toBe(`${content("x")}data: {"partial"`);
  });
});
