import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@llmgw/agent/testing";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import {
  type AgentProcess,
  newToken,
  sha256Hex,
  startAgentProcess,
  tokensYaml,
  writeTinyLlamaGguf,
} from "@llmgw/api/testing";
import { answer, connect } from "@llmgw/client";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMirrored } from "./ctl-harness";

// SPEC §8 end to end, as a user runs it: a version in the mirror, a model made from its serve plan
// through the API, the scheduler places it on the node of a real `llmgw agent` process, which
// downloads the file from the mirror with its token, checks its SHA-256, starts a real llama.cpp
// (node-llama-cpp behind llama-server's API) on the cached file, and the official `openai` SDK gets
// an answer through the gateway.

const digestOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const SECRET = { admin: newToken(), agent: newToken() };
const NODE = "weights-node";
let root = "";
let server: RunningServer;
let agent: AgentProcess | null = null;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-weights-e2e-"));
  await mkdir(join(root, "mirror", "tiny", "v1"), { recursive: true });
  await writeTinyLlamaGguf(join(root, "mirror", "tiny", "v1", "tiny.gguf"));
  const file = join(root, "llmgw.yaml");
  await writeFile(
    file,
    tokensYaml([
      { name: "ops", role: "admin", sha256: sha256Hex(SECRET.admin) },
      { name: "box", role: "agent", node: NODE, sha256: sha256Hex(SECRET.agent) },
    ]),
  );
  server = await startServer(loadConfig({ config: file, dataDir: root, listen: "127.0.0.1:0" }, {}), {
    log: silentLogger(),
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("weights reach the node (SPEC §8)", () => {
  it("downloads a mirrored version, runs real llama.cpp on it, and answers through the gateway", async () => {
    const { api } = connect({ server: server.url, token: SECRET.admin });
    const local = join(root, "mirror", "tiny", "v1", "tiny.gguf");
    const sha256 = digestOf(await readFile(local));
    // The mirror hashes the file in the background and publishes it on the version.
    await until(async () => {
      const versions = await answer(api.mirror.$get());
      return versions.some((v) => v.model === "tiny" && v.files.some((f) => f.sha256 === sha256));
    }, "the mirror's SHA-256 of tiny.gguf");
    await serveMirrored(api, "tiny", 256);

    agent = startAgentProcess({
      server: server.url,
      node: NODE,
      token: SECRET.agent,
      cacheDir: join(root, "cache"),
    });
    await until(
      async () => {
        const replicas = await answer(api.fleet.replicas.$get());
        const replica = replicas.find((r) => r.model === "tiny");
        if (replica?.state === "failed")
          throw new Error(`the replica failed: ${replica.reason}\n${agent?.output()}`);
        return replica?.state === "ready" && replica.endpoint !== null;
      },
      "a ready replica of tiny",
      90_000,
    );

    const cached = join(root, "cache", "tiny", "v1", "tiny.gguf");
    expect(digestOf(await readFile(cached))).toBe(sha256);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: SECRET.admin, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 8,
    });
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  }, 150_000);
});
