import { describe, expect, it } from "vitest";
import { PromptCache, promptWords } from "./promptCache";

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`);

describe("PromptCache", () => {
  it("finds the longest cached beginning of a prompt", () => {
    const cache = new PromptCache(10_000);
    expect(cache.read(words(100, "a"))).toBe(0);
    expect(cache.read([...words(100, "a"), ...words(20, "b")])).toBe(100);
    expect(cache.read(words(50, "a"))).toBe(50);
    expect(cache.read(words(10, "z"))).toBe(0);
  });

  it("drops the least recently used prompt past its budget", () => {
    const cache = new PromptCache(250);
    cache.read(words(100, "a"));
    cache.read(words(100, "b"));
    cache.read(words(100, "a")); // a is used again: b is now the oldest
    cache.read(words(100, "c"));
    expect(cache.read(words(100, "b"))).toBe(0);
  });
});

describe("promptWords", () => {
  it("reads chat messages in order with their roles, and a prompt as text", () => {
    expect(
      promptWords({
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "hi" },
        ],
      }),
    ).toEqual(["system:", "be", "brief", "user:", "hi"]);
    expect(promptWords({ prompt: "once upon" })).toEqual(["once", "upon"]);
  });
});
