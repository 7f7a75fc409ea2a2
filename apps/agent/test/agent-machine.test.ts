import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ENGINE_COMMANDS, engineArgv, engineCommands } from "../src/command";
import { probeMachine } from "../src/machine";
import { AGENT_VERSION } from "../src/version";
import { desiredReplica } from "./kit";

let bin: string;

beforeEach(async () => {
  bin = await mkdtemp(join(tmpdir(), "llmgw-probe-"));
});
afterEach(async () => {
  await rm(bin, { recursive: true, force: true });
});

async function script(name: string, body: string): Promise<void> {
  await writeFile(join(bin, name), `#!/bin/sh\n${body}\n`);
  await chmod(join(bin, name), 0o755);
}

describe("the machine probe", () => {
  it("counts GPUs and the memory of one where nvidia-smi answers, and finds engines on PATH", async () => {
    // A stand-in for nvidia-smi on a 4 × 80 GB machine; it answers only the query the agent makes.
    await script(
      "nvidia-smi",
      `[ "$*" = "--query-gpu=memory.total --format=csv,noheader,nounits" ] || exit 2
printf '81920\\n81920\\n81920\\n81920\\n'`,
    );
    await script("llama-server", "exit 0");
    await script("vllm", "exit 0");

    const facts = await probeMachine({ path: bin, labels: { gpu: "a100" } }).facts();

    expect(facts).toMatchObject({
      name: hostname(),
      gpuTotal: 4,
      gpuMemoryGB: 80,
      engines: ["llamacpp", "vllm"],
      labels: { gpu: "a100" },
      agentVersion: AGENT_VERSION,
    });
    expect(facts.memoryGB).toBeGreaterThan(0);
    expect(facts.cpuCount).toBeGreaterThanOrEqual(1);
    expect(facts.freeMemoryGB).toBeGreaterThan(0);
    expect(facts.freeMemoryGB).toBeLessThanOrEqual(facts.memoryGB);
  });

  it("reports the smallest GPU's memory on a machine with mixed GPUs", async () => {
    await script("nvidia-smi", `printf '81920\\n40960\\n\\n'`);
    expect(await probeMachine({ path: bin }).facts()).toMatchObject({ gpuTotal: 2, gpuMemoryGB: 40 });
  });

  it("reports no GPUs and no engines when there are none, and when nvidia-smi fails", async () => {
    expect(await probeMachine({ path: bin, name: "bare" }).facts()).toMatchObject({
      name: "bare",
      gpuTotal: 0,
      gpuMemoryGB: 0,
      engines: [],
    });
    await script("nvidia-smi", "echo 'NVIDIA-SMI has failed' >&2; exit 9");
    expect(await probeMachine({ path: bin }).facts()).toMatchObject({ gpuTotal: 0, gpuMemoryGB: 0 });
  });

  it("counts an engine of --engine-command as installed when its program is found", async () => {
    await script("my-llama", "exit 0");
    const commands = new Map([
      ["llamacpp", "my-llama --model {path} --port {port}"],
      ["custom", `${join(bin, "my-llama")} --port {port}`],
      ["vllm", "vllm serve {path}"],
    ]);
    expect((await probeMachine({ path: bin, engineCommands: commands }).facts()).engines).toEqual([
      "llamacpp",
      "custom",
    ]);
  });

  it("does not count a file that is not executable as an engine", async () => {
    await writeFile(join(bin, "vllm"), "not a program");
    expect((await probeMachine({ path: bin }).facts()).engines).toEqual([]);
  });
});

describe("engine commands", () => {
  it("fills the placeholders, splats {args} into words, and honours quotes", () => {
    const replica = desiredReplica({
      id: "r1",
      model: "m",
      source: "http://mirror/x y.gguf",
      args: ["--ctx-size", "8192"],
    });
    const place = { path: "/cache/m/v1/x y.gguf", host: "10.0.0.7", port: 9000 };
    expect(
      engineArgv("llama-server --model {path} --port={port} {args} --alias '{model} {id}'", replica, place),
    ).toEqual([
      "llama-server",
      "--model",
      "/cache/m/v1/x y.gguf",
      "--port=9000",
      "--ctx-size",
      "8192",
      "--alias",
      "m r1",
    ]);
    expect(engineArgv("vllm serve {source} {args}", { ...replica, args: [] }, place)).toEqual([
      "vllm",
      "serve",
      "/cache/m/v1/x y.gguf",
    ]);
  });

  it("fills the defaults' {path} {host} {port} {threads} {model}; args from the server stay as written", () => {
    const replica = desiredReplica({
      id: "r2",
      model: "qwen",
      cpuCores: 6,
      args: ["--chat-template", "{path}"],
    });
    const place = { path: "/cache/qwen/v2", host: "10.0.0.7", port: 41234 };
    expect(engineArgv(DEFAULT_ENGINE_COMMANDS.get("llamacpp") ?? "", replica, place)).toEqual([
      ...["llama-server", "--model", "/cache/qwen/v2", "--host", "10.0.0.7", "--port", "41234"],
      ...["--threads", "6", "--metrics", "--chat-template", "{path}"],
    ]);
    expect(engineArgv(DEFAULT_ENGINE_COMMANDS.get("vllm") ?? "", { ...replica, args: [] }, place)).toEqual([
      ...["vllm", "serve", "/cache/qwen/v2", "--host", "10.0.0.7", "--port", "41234"],
      ...["--served-model-name", "qwen"],
    ]);
    // A profile asking no cores still gives the engine one thread.
    expect(engineArgv("e --threads {threads}", { ...replica, cpuCores: 0 }, place)).toEqual([
      "e",
      "--threads",
      "1",
    ]);
  });

  it("takes --engine-command over the defaults and refuses what it cannot read", () => {
    const commands = engineCommands(["vllm=/opt/vllm/bin/vllm serve {source} --port {port}"]);
    expect(commands.get("vllm")).toBe("/opt/vllm/bin/vllm serve {source} --port {port}");
    expect(commands.get("llamacpp")).toContain("llama-server");
    expect(() => engineCommands(["llama-server --port {port}"])).toThrow(/engine='command'/);
    expect(() => engineCommands(["vllm='unclosed"])).toThrow(/unclosed/);
  });
});
