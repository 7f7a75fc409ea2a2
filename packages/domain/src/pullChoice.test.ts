import { describe, expect, it } from "vitest";
import {
  defaultPullModel,
  defaultPullVersion,
  globMatches,
  type HubFile,
  pickQuant,
  quantOf,
  selectFiles,
  selectionName,
  selectionProblem,
  unsafeListedPath,
} from "./pullChoice";
import { isHubRepo, pullRequestSchema, pullSpecOf } from "./pullSchemas";

let sequence = 0;
function hubFile(path: string, overrides: Partial<HubFile> = {}): HubFile {
  sequence += 1;
  return { path, bytes: 1000 + sequence, sha256: "a".repeat(64), gitOid: null, ...overrides };
}

const paths = (selection: ReturnType<typeof selectFiles>) =>
  selection.kind === "none" ? [] : selection.files.map((f) => f.path);

describe("quantOf", () => {
  it.each([
    ["Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Q4_K_M"],
    ["llama-2-7b.Q8_0.gguf", "Q8_0"],
    ["qwen2.5-7b-instruct-q4_k_m.gguf", "Q4_K_M"],
    ["Q4_K_M/Big-Model-Q4_K_M-00001-of-00003.gguf", "Q4_K_M"],
    ["model-IQ4_XS.gguf", "IQ4_XS"],
    ["model-UD-Q4_K_XL.gguf", "Q4_K_XL"],
    ["model-bf16.gguf", "BF16"],
    ["model-Q4_K_M-imat.gguf", "Q4_K_M"],
    ["ggml-model.gguf", "ggml-model"],
  ])("%s is %s", (path, quant) => {
    expect(quantOf(path)).toBe(quant);
  });
});

describe("pickQuant", () => {
  const quants = ["IQ2_M", "Q3_K_L", "Q4_0", "Q4_K_M", "Q8_0"];

  it("takes the one asked, by name or by what a name holds, case-insensitively", () => {
    expect(pickQuant(quants, "q8_0")).toBe("Q8_0");
    expect(pickQuant(quants, "Q3_K")).toBe("Q3_K_L");
    expect(pickQuant(quants, "Q5_K_M")).toBeNull();
  });

  it("else Q4_K_M, else the first Q4, else the first", () => {
    expect(pickQuant(quants)).toBe("Q4_K_M");
    expect(pickQuant(["IQ2_M", "Q4_0", "Q4_1"])).toBe("Q4_0");
    expect(pickQuant(["Q8_0", "F16"])).toBe("Q8_0");
    expect(pickQuant([])).toBeNull();
  });
});

describe("selectFiles", () => {
  it("takes every part of a split file, in order, and leaves the projector out", () => {
    const listing = [
      hubFile("README.md"),
      hubFile("mmproj-model-f16.gguf"),
      hubFile("Q4_K_M/M-Q4_K_M-00002-of-00002.gguf"),
      hubFile("Q4_K_M/M-Q4_K_M-00001-of-00002.gguf"),
      hubFile("M-Q8_0.gguf"),
    ];
    const picked = selectFiles(listing, {});
    expect(picked).toMatchObject({ kind: "gguf", quant: "Q4_K_M" });
    expect(paths(picked)).toEqual([
      "Q4_K_M/M-Q4_K_M-00001-of-00002.gguf",
      "Q4_K_M/M-Q4_K_M-00002-of-00002.gguf",
    ]);
    expect(paths(selectFiles(listing, { quant: "q8_0" }))).toEqual(["M-Q8_0.gguf"]);
  });

  it("names the quantisations there are when the one asked is not there", () => {
    const listing = [hubFile("M-Q8_0.gguf"), hubFile("M-Q4_K_M.gguf")];
    expect(selectFiles(listing, { quant: "Q6_K" })).toEqual({ kind: "none", quants: ["Q4_K_M", "Q8_0"] });
  });

  it("takes what vLLM reads from a safetensors repo, at its top level", () => {
    const listing = [
      hubFile("config.json"),
      hubFile("model-00001-of-00002.safetensors"),
      hubFile("model-00002-of-00002.safetensors"),
      hubFile("model.safetensors.index.json"),
      hubFile("tokenizer.json"),
      hubFile("tokenizer_config.json"),
      hubFile("tokenizer.model"),
      hubFile("README.md"),
      hubFile("original/consolidated.00.pth"),
      hubFile("original/params.json"),
    ];
    const picked = selectFiles(listing, {});
    expect(picked.kind).toBe("safetensors");
    expect(paths(picked)).toEqual([
      "config.json",
      "model-00001-of-00002.safetensors",
      "model-00002-of-00002.safetensors",
      "model.safetensors.index.json",
      "tokenizer.json",
      "tokenizer.model",
      "tokenizer_config.json",
    ]);
    expect(selectFiles(listing, { quant: "Q4_K_M" })).toEqual({ kind: "none", quants: [] });
    expect(selectFiles([hubFile("README.md")], {})).toEqual({ kind: "none", quants: [] });
  });

  it("lets globs override the choice", () => {
    const listing = [hubFile("M-Q8_0.gguf"), hubFile("M-Q4_K_M.gguf"), hubFile("sub/M-Q5_K_M.gguf")];
    expect(paths(selectFiles(listing, { files: ["*Q5_K_M*"] }))).toEqual(["sub/M-Q5_K_M.gguf"]);
    expect(paths(selectFiles(listing, { files: ["M-Q8_0.gguf", "*q4*"] }))).toEqual([
      "M-Q4_K_M.gguf",
      "M-Q8_0.gguf",
    ]);
    expect(selectFiles(listing, { files: ["*.bin"] }).kind).toBe("none");
  });
});

describe("globMatches", () => {
  it("matches a file name without a slash, a path with one, never across segments", () => {
    expect(globMatches("*.gguf", "a/b.gguf")).toBe(true);
    expect(globMatches("a/*.gguf", "a/b.gguf")).toBe(true);
    expect(globMatches("*/b.gguf", "x/a/b.gguf")).toBe(false);
    expect(globMatches("b.gguf", "b.ggufx")).toBe(false);
    expect(globMatches("b?gguf", "b.gguf")).toBe(true);
  });
});

describe("listed paths", () => {
  it.each([
    ["../escape.gguf", "leaves"],
    ["a/../../b.gguf", "leaves"],
    ["/etc/passwd", "absolute"],
    ["a\\b.gguf", "backslash"],
    ["a//b.gguf", "leaves"],
    ["a\u0000b", "control"],
  ])("%s is refused", (path, why) => {
    expect(unsafeListedPath(path)).toContain(why);
  });

  it("refuses a name over 240 bytes, counted in UTF-8, and keeps one of 240", () => {
    expect(unsafeListedPath(`${"L".repeat(296)}.gguf`)).toContain("301 bytes");
    expect(unsafeListedPath(`sub/${"é".repeat(121)}`)).toContain("242 bytes");
    expect(unsafeListedPath(`${"L".repeat(235)}.gguf`)).toBeNull();
  });

  it("keeps a path inside the version's folder", () => {
    expect(unsafeListedPath("Q4_K_M/M-00001-of-00002.gguf")).toBeNull();
  });

  it("refuses a selection with a bad path, a hidden name, or two paths landing on one file", () => {
    expect(selectionProblem([hubFile("ok.gguf"), hubFile("../x.gguf")])).toContain("will not write");
    expect(selectionProblem([hubFile("sub/.hidden.gguf")])).toContain("hidden");
    expect(selectionProblem([hubFile("a/m.gguf"), hubFile("b/m.gguf")])).toContain("would both be m.gguf");
    expect(selectionProblem([hubFile("m.gguf.part")])).toContain("keeps for downloads");
    expect(selectionProblem([hubFile("a/m.gguf"), hubFile("n.gguf")])).toBeNull();
  });
});

describe("names", () => {
  it("names the model after the repo, lower-cased, and the version after the quantisation or commit", () => {
    expect(defaultPullModel("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF")).toBe(
      "meta-llama-3.1-8b-instruct-gguf",
    );
    expect(defaultPullModel(`o/${"x".repeat(80)}`)).toBeNull();
    const commit = "0123456789abcdef0123456789abcdef01234567";
    expect(defaultPullVersion({ kind: "gguf", quant: "Q4_K_M", files: [] }, commit)).toBe("Q4_K_M");
    expect(defaultPullVersion({ kind: "safetensors", files: [] }, commit)).toBe("0123456789ab");
    expect(defaultPullVersion({ kind: "globs", files: [hubFile("m-Q8_0.gguf")] }, commit)).toBe("Q8_0");
    expect(defaultPullVersion({ kind: "globs", files: [hubFile("config.json")] }, commit)).toBe(
      "0123456789ab",
    );
    const mixed = [hubFile("m-Q8_0.gguf"), hubFile("m-Q4_0.gguf")];
    expect(defaultPullVersion({ kind: "globs", files: mixed }, commit)).toBe("0123456789ab");
    expect(selectionName({ kind: "globs", files: [hubFile("m-Q8_0.gguf"), hubFile("README.md")] })).toBe(
      "Q8_0",
    );
    expect(selectionName({ kind: "globs", files: [hubFile("README.md")] })).toBe("files");
  });
});

describe("the pull request", () => {
  it.each(["owner/name", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "Qwen/Qwen2.5-0.5B-Instruct"])(
    "takes %s",
    (repo) => {
      expect(isHubRepo(repo)).toBe(true);
    },
  );

  it.each(["name", "a/b/c", "../b", "a/..", "a/b..c", "a/.b", "a /b", "a/b\u0007", "/b", "a/"])(
    "refuses %j, naming the repo",
    (repo) => {
      const result = pullRequestSchema.safeParse({ repo });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(["repo"]);
    },
  );

  it("refuses a revision or glob that climbs out, and unknown fields", () => {
    expect(pullRequestSchema.safeParse({ repo: "a/b", revision: "../main" }).success).toBe(false);
    expect(pullRequestSchema.safeParse({ repo: "a/b", files: ["../x"] }).success).toBe(false);
    expect(pullRequestSchema.safeParse({ repo: "a/b", extra: 1 }).success).toBe(false);
    expect(pullRequestSchema.safeParse({ repo: "a/b", revision: "refs/pr/1", quant: "Q4_K_M" }).success).toBe(
      true,
    );
  });
});

describe("pullSpecOf", () => {
  it("splits the quantisation off after the colon, and takes hf.co/ and Hub URLs", () => {
    expect(pullSpecOf("owner/name")).toEqual({ repo: "owner/name" });
    expect(pullSpecOf(" owner/name:Q4_K_M ")).toEqual({ repo: "owner/name", quant: "Q4_K_M" });
    expect(pullSpecOf("hf.co/owner/name:q8_0")).toEqual({ repo: "owner/name", quant: "q8_0" });
    expect(pullSpecOf("https://huggingface.co/owner/name")).toEqual({ repo: "owner/name" });
    expect(pullSpecOf("owner/name:")).toEqual({ repo: "owner/name" });
  });
});
