import { argRules, DEFAULT_ALLOWED_ARGS, refusedArgs } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { engineCommands, flagsOf } from "../src/command";
import { engineEnvironment, engineEnvNames } from "../src/engineEnv";
import { refusedSource } from "../src/processes";

// What a node lets the server's profiles ask of its engines (SPEC §4, "agents are trusted with
// their own node and nothing more"): the profile's args, the source, the environment.

const refused = (engine: string, args: string[], rules = DEFAULT_ALLOWED_ARGS) =>
  refusedArgs(engine, args, rules);

describe("a profile's args", () => {
  it("may tune the engines: context, batching, offload, KV cache, dtypes, parallelism", () => {
    expect(
      refused("llamacpp", [
        ...["--ctx-size", "8192", "-np", "4", "-ngl", "99", "--flash-attn", "--cont-batching"],
        ...["--seed", "-1", "--cache-type-k", "q8_0", "-fa", "on", "--tensor-split", "3,1"],
        ...["--chat-template", "chatml", "--rope-freq-base", "1e6", "--mlock", "--temp", "0.7"],
      ]),
    ).toBeNull();
    expect(
      refused("vllm", [
        ...["--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--dtype", "bfloat16"],
        ...["--enforce-eager", "--max-model-len=8192", "--kv-cache-dtype", "fp8_e5m2"],
      ]),
    ).toBeNull();
  });

  it.each([
    ["llamacpp", ["--model", "/etc/shadow"], '"--model": the agent sets it'],
    ["llamacpp", ["-m", "/etc/shadow"], '"-m": the agent sets it'],
    ["llamacpp", ["--host", "0.0.0.0"], '"--host": the agent sets it'],
    ["llamacpp", ["--port=22"], '"--port=22": the agent sets it'],
    ["llamacpp", ["--log-file", "/home/ops/.bashrc"], '"--log-file": it names a file'],
    ["llamacpp", ["--slot-save-path", "/"], '"--slot-save-path": it names a file'],
    ["llamacpp", ["--lora", "x.gguf"], '"--lora": it names a file'],
    ["llamacpp", ["--mmproj", "x.gguf"], '"--mmproj": it names a file'],
    ["llamacpp", ["--chat-template-file", "/etc/shadow"], '"--chat-template-file": it names a file'],
    ["llamacpp", ["--grammar-file", "/etc/shadow"], '"--grammar-file": it names a file'],
    ["llamacpp", ["--api-key-file", "/etc/shadow"], '"--api-key-file": it names a file'],
    ["llamacpp", ["--ssl-key-file", "k.pem"], '"--ssl-key-file": it names a file'],
    ["llamacpp", ["--path", "/"], '"--path": it names a file'],
    ["llamacpp", ["-hf", "someone/model"], '"-hf": it names a file'],
    ["llamacpp", ["--api-key", "x"], '"--api-key": it carries a secret'],
    ["llamacpp", ["--rpc", "10.0.0.9:50052"], '"--rpc": it connects to other hosts'],
    ["vllm", ["--trust-remote-code"], '"--trust-remote-code": it runs code'],
    ["vllm", ["--download-dir", "/tmp"], '"--download-dir": it names a file'],
    ["vllm", ["--served-model-name", "gpt-4"], '"--served-model-name": the agent sets it'],
    ["vllm", ["--tokenizer", "someone/tok"], '"--tokenizer": it names a file'],
    ["vllm", ["--config", "x.yaml"], '"--config": it names a file'],
  ])("refuses %s %j, naming it and why", (engine, args, why) => {
    expect(refused(engine, args)).toContain(`refused arg ${why}`);
  });

  it("refuses a flag it does not know, saying how this node's operator may allow it", () => {
    expect(refused("llamacpp", ["--some-flag"])).toBe(
      'refused arg "--some-flag": not on this node\'s allow-list for llamacpp (its operator may add it: --allow-arg llamacpp=--some-flag)',
    );
    // vLLM's --chat-template reads a file; llama-server's takes a name.
    expect(refused("vllm", ["--chat-template", "chatml"])).toContain(
      "not on this node's allow-list for vllm",
    );
    expect(refused("my-engine", ["--ctx-size", "1"])).toContain(
      "not on this node's allow-list for my-engine",
    );
  });

  it.each([
    [["--ctx-size", "/etc/shadow"], '"/etc/shadow": the value of --ctx-size is a number or one plain word'],
    [["--ctx-size", "--model"], '"--model": the value of --ctx-size'],
    [["--ctx-size=../up"], '"--ctx-size=../up": a value is a number or one plain word'],
    [
      ["--chat-template", "{% raw %}"],
      '"{% raw %}": the value of --chat-template is a number or one plain word',
    ],
    [["--ctx-size"], '"--ctx-size": --ctx-size wants a value'],
    [["--mlock=1"], '"--mlock=1": --mlock takes no value'],
    [["--mlock", "model.gguf"], '"model.gguf": each arg is a flag or the value of the flag before it'],
    [["--ctx-size 4096"], '"--ctx-size 4096": each arg is a flag'],
  ])("checks values: %j", (args, why) => {
    expect(refused("llamacpp", args)).toContain(`refused arg ${why}`);
  });

  it("may not set a flag the engine's command sets", () => {
    const template = "llama-server -c 4096 --model={source} --port {port} {args}";
    expect(flagsOf(template)).toEqual(new Set(["-c", "--model", "--port"]));
    expect(refusedArgs("llamacpp", ["-c", "8192"], DEFAULT_ALLOWED_ARGS, flagsOf(template))).toBe(
      'refused arg "-c": the agent sets it',
    );
  });

  it("are extended on the node by --allow-arg, for that engine only, never past the refused", () => {
    const rules = argRules(["llamacpp=--some-flag", "my-engine=--speed"]);
    expect(refusedArgs("llamacpp", ["--some-flag", "--some-flag", "3", "--ctx-size", "1"], rules)).toBeNull();
    expect(refusedArgs("my-engine", ["--speed", "fast"], rules)).toBeNull();
    expect(refusedArgs("vllm", ["--some-flag"], rules)).toContain("not on this node's allow-list");
    expect(refusedArgs("llamacpp", ["--some-flag", "/etc/shadow"], rules)).toContain("one plain word");
    expect(refused("llamacpp", ["--some-flag"]), "the defaults are not changed").not.toBeNull();

    expect(() => argRules(["llamacpp=--log-file"])).toThrow(/--log-file cannot be allowed: it names a file/);
    expect(() => argRules(["vllm=--trust-remote-code"])).toThrow(/cannot be allowed: it runs code/);
    expect(() => argRules(["llamacpp=--model"])).toThrow(/cannot be allowed: the agent sets it/);
    expect(() => argRules(["--some-flag"])).toThrow(/engine=--flag/);
    expect(() => argRules(["llamacpp=some flag"])).toThrow(/engine=--flag/);
  });
});

describe("engine names", () => {
  it("are keys of Maps: `constructor` or `__proto__` from the server is no engine", () => {
    const commands = engineCommands(["__proto__=echo {args}"]);
    expect(commands.get("__proto__")).toBe("echo {args}");
    expect(commands.get("constructor")).toBeUndefined();
    expect(refused("constructor", ["--ctx-size", "1"])).toContain(
      "not on this node's allow-list for constructor",
    );
    expect(refused("__proto__", [])).toBeNull();
    // A reason shows a name from the server quoted and cut short when it is not plain.
    expect(refused("bad\u0000engine", ["--x"])).toContain('allow-list for "bad\\u0000engine"');
    expect(refused("llamacpp", [`--${"x".repeat(5000)}`])?.length).toBeLessThan(400);
  });
});

describe("a replica's source", () => {
  it("is an http(s) URL: never a path on the node, a file: URL or a flag", () => {
    expect(refusedSource("http://10.0.0.1:8080/mirror/m/q4/model.gguf")).toBeNull();
    expect(refusedSource("https://weights.example/m/")).toBeNull();
    for (const source of ["/etc/shadow", "model.gguf", "file:///etc/shadow", "--model=/x", "ftp://x/y", ""]) {
      expect(refusedSource(source), source).toBe(
        `refused source ${JSON.stringify(source)}: weights come from an http(s) URL`,
      );
    }
  });
});

describe("the engines' environment", () => {
  it("keeps what engines need and nothing of the agent's: no LLMGW_*, no other secrets", () => {
    const env = {
      PATH: "/usr/bin",
      HOME: "/home/ops",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TMPDIR: "/tmp",
      CUDA_VISIBLE_DEVICES: "0,1",
      LLMGW_TOKEN: "llmgw_secret",
      LLMGW_SERVER: "http://10.0.0.1:8080",
      llmgw_token: "llmgw_secret",
      AWS_SECRET_ACCESS_KEY: "aws",
      HF_TOKEN: "hf",
      LLAMA_ARG_MODEL: "/etc/shadow",
      OMP_NUM_THREADS: "8",
    };
    expect(engineEnvironment(env)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/ops",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TMPDIR: "/tmp",
      CUDA_VISIBLE_DEVICES: "0,1",
      OMP_NUM_THREADS: "8",
    });
    expect(engineEnvironment(env, engineEnvNames(["HF_TOKEN"]))).toMatchObject({ HF_TOKEN: "hf" });
    expect(() => engineEnvNames(["LLMGW_TOKEN"])).toThrow(/never reach an engine/);
    expect(() => engineEnvNames(["A=B"])).toThrow(/variable name/);
  });
});
