import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { llama31_8b, writeGgufFile, writeNotGguf } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { useApi } from "./harness";

// GET /mirror/info (issue 18): the first-run guide's words, the mirror's own directory and layout,
// and weights files the scan passes over because they are not at <model>/<version>/<file>.

const api = useApi();

describe("GET /mirror/info", () => {
  it("names the mirror's directory and its layout, with nothing misplaced in an empty mirror", async () => {
    const info = await (await api.client.mirror.info.$get()).json();
    expect(info).toEqual({ dir: api.mirrorDir, layout: "<model>/<version>/<file>", misplaced: [] });
  });

  it("lists a .gguf at the root or in a model's folder as misplaced, with where to move it", async () => {
    await writeGgufFile(join(api.mirrorDir, "stray.gguf"), llama31_8b());
    await writeGgufFile(join(api.mirrorDir, "llama", "flat.gguf"), llama31_8b());
    await writeGgufFile(join(api.mirrorDir, "llama", "q4", "right.gguf"), llama31_8b());
    await writeNotGguf(join(api.mirrorDir, "notes.txt"), 10);
    await mkdir(join(api.mirrorDir, "empty"), { recursive: true });
    await api.deps.mirror.scan();

    const info = await (await api.client.mirror.info.$get()).json();
    expect(info.misplaced).toEqual([
      { path: "stray.gguf", fix: `move stray.gguf to ${api.mirrorDir}/<model>/<version>/stray.gguf` },
      { path: "llama/flat.gguf", fix: `move llama/flat.gguf to ${api.mirrorDir}/llama/<version>/flat.gguf` },
    ]);
    // The one in place is listed as a version, not as misplaced.
    const entries = await (await api.client.mirror.$get()).json();
    expect(entries.map((e) => `${e.model}/${e.version}`)).toEqual(["llama/q4"]);
  });
});
