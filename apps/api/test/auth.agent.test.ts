import { join } from "node:path";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { errorOf, useApi } from "./harness";

import { bearer, SECRETS, tokensYaml } from "./security-kit";

// An agent token opens two doors (SPEC §4, §8): its node's heartbeat, and the mirror's files,
// which the agent downloads with its own token so that the engines it starts never need one.

const api = useApi({ yaml: tokensYaml() });
let sequence = 0;

/** One GGUF file in the mirror under a fresh model name, found by a rescan. */
async function mirrored(): Promise<{ model: string; version: string; file: string }> {
  const model = `weights-${++sequence}`;
  const version = "q4_k_m";
  const file = "model.gguf";
  await writeGgufFile(join(api.mirrorDir, model, version, file), llama3_8b({ weightsBytes: 1024 }));
  await api.deps.mirror.scan();
  return { model, version, file };
}

describe("an agent token", () => {
  it("downloads a mirror file, resuming with Range, and lists a version's files", async () => {
    const { model, version, file } = await mirrored();

    const part = await api.app.request(`/mirror/${model}/${version}/${file}`, {
      headers: { ...bearer(SECRETS.agent), Range: "bytes=0-3" },
    });
    expect(part.status, await part.clone().text()).toBe(206);
    expect(part.headers.get("content-range")).toMatch(/^bytes 0-3\/\d+$/);
    expect(Buffer.from(await part.arrayBuffer()).toString("latin1")).toBe("GGUF");

    const listing = await api.app.request(`/mirror/${model}/${version}/`, { headers: bearer(SECRETS.agent) });
    expect(listing.status).toBe(200);
    expect(await listing.json()).toEqual([{ file, size: expect.any(Number) }]);
  });

  it("is still refused everywhere else: the catalogue, the mirror's API, tokens (403)", async () => {
    const refused: [string, string][] = [
      ["GET", "/api/v1/models"],
      ["GET", "/api/v1/mirror"],
      ["GET", "/api/v1/fleet/nodes"],
      ["GET", "/api/v1/tokens"],
      ["GET", "/metrics"],
    ];
    for (const [method, path] of refused) {
      const res = await api.app.request(path, { method, headers: bearer(SECRETS.agent) });
      const error = await errorOf(res, 403);
      expect(error.message, `${method} ${path}`).toContain("may only post heartbeats and read mirror files");
    }
  });

  it("is needed: the mirror's files are not open to a caller without a token (401)", async () => {
    const { model, version, file } = await mirrored();
    const res = await api.app.request(`/mirror/${model}/${version}/${file}`);
    await errorOf(res, 401);
  });
});
