import type { MirrorEntry, ServePlan } from "@llmgw/domain";
import { makeMirrorVersion } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { servableFirst } from "./order";

function entry(version: string, refusal: string | null): MirrorEntry {
  const mirrored = makeMirrorVersion({ model: "m", version });
  const plan: ServePlan = {
    model: mirrored.model,
    version,
    source: `http://mirror/m/${version}`,
    engine: refusal ? "" : "llamacpp",
    profile: "cpu",
    files: 1,
    minMemoryGB: 4,
    cpuCores: 2,
    memoryBasis: "file size",
    ctxPool: 4096,
    refusal,
    warning: null,
    already: false,
  };
  return { ...mirrored, plan };
}

describe("servableFirst", () => {
  it("lists the versions that can be served before the refused ones, each group in the server's order", () => {
    const entries = [
      entry("a", "not a GGUF file"),
      entry("b", null),
      entry("c", "no engine for these files"),
      entry("d", null),
    ];
    expect(servableFirst(entries).map((e) => e.version)).toEqual(["b", "d", "a", "c"]);
    expect(entries.map((e) => e.version)).toEqual(["a", "b", "c", "d"]);
  });
});
