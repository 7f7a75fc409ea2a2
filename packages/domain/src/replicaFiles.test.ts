import { describe, expect, it } from "vitest";
import { makeMirrorFile, makeMirrorVersion } from "../test/factories";
import { mirrorVersionOf, replicaFilesOf } from "./replicaFiles";
import { mirrorUrl } from "./servePlan";

describe("mirrorVersionOf", () => {
  it.each([
    ["http://127.0.0.1:8080/mirror/llama3.1-8b/q4/Llama-3.1-8B.Q4_K_M.gguf", "llama3.1-8b", "q4"],
    ["http://mirror.example/mirror/qwen2.5-7b/main/", "qwen2.5-7b", "main"],
    ["https://gw.internal/mirror/m/v", "m", "v"],
    ["/mirror/m/v/m.gguf", "m", "v"],
    ["http://h/mirror/m/v/m.gguf?download=1", "m", "v"],
  ])("finds the version %s names", (source, model, version) => {
    expect(mirrorVersionOf(source)).toEqual({ model, version });
  });

  it("reads back what the serve wizard writes, escaped names included", () => {
    const source = mirrorUrl("http://h:1/", "qwen:7b", "v 1", "a b.gguf");

    expect(mirrorVersionOf(source)).toEqual({ model: "qwen:7b", version: "v 1" });
  });

  it.each([
    "https://huggingface.co/org/repo/resolve/main/m.gguf",
    "http://h/mirror/m/",
    "http://h/mirror/m/v/sub/m.gguf",
    "http://h/weights/mirror/m/v/m.gguf",
    "http://h/mirror/a%2Fb/v/m.gguf",
    "http://h/mirror/%E0%A4%A/v/m.gguf",
    "/models/m.gguf",
    "http://[bad",
  ])("is null for %s, outside the mirror's layout", (source) => {
    expect(mirrorVersionOf(source)).toBeNull();
  });
});

describe("replicaFilesOf", () => {
  it("lists the complete files as paths on this server, with size and digest", () => {
    const version = makeMirrorVersion({
      model: "qwen:7b",
      version: "main",
      files: [
        makeMirrorFile({ file: "config.json", bytesDone: 2, bytesTotal: 2, sha256: "b".repeat(64) }),
        makeMirrorFile({ file: "model 1.safetensors", bytesDone: 3, bytesTotal: 9, state: "downloading" }),
        makeMirrorFile({ file: "broken.bin", bytesDone: 0, bytesTotal: null, state: "failed", error: "EIO" }),
      ],
    });

    expect(replicaFilesOf(version)).toEqual([
      { url: "/mirror/qwen:7b/main/config.json", path: "config.json", bytes: 2, sha256: "b".repeat(64) },
    ]);
  });
});
