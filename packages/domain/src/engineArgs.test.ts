import { describe, expect, it } from "vitest";
import { argRules, refusedArgs, refusedOnEveryNode } from "./engineArgs";

// SPEC §11.1: the API refuses, before anything starts, the args no node would run; a flag a
// node's operator may still allow with --allow-arg is left to the nodes.

describe("args refused on every node", () => {
  it.each([
    ["llamacpp", ["--model", "/m.gguf"], '"--model": the agent sets it'],
    ["llamacpp", ["--port", "9"], '"--port": the agent sets it'],
    ["llamacpp", ["--log-file", "/tmp/x"], '"--log-file": it names a file'],
    ["vllm", ["--trust-remote-code"], '"--trust-remote-code": it runs code'],
    ["llamacpp", ["--ctx-size", "/etc/shadow"], '"/etc/shadow": the value of --ctx-size'],
    ["llamacpp", ["--no-mmap=1"], '"--no-mmap=1": --no-mmap takes no value'],
    ["llamacpp", ["4096"], '"4096": each arg is a flag'],
    ["my-engine", ["--some-flag", "../x"], '"../x": the value of --some-flag'],
  ])("refuses %s %j, naming it and why", (engine, args, why) => {
    expect(refusedOnEveryNode(engine, args)).toContain(`refused arg ${why}`);
  });

  it("takes the built-in list's args, and flags off it that a node may allow", () => {
    expect(refusedOnEveryNode("llamacpp", ["--ctx-size", "4096", "-fa", "--jinja"])).toBeNull();
    expect(refusedOnEveryNode("llamacpp", ["--some-flag", "3"])).toBeNull();
    expect(refusedOnEveryNode("my-engine", ["--fast"])).toBeNull();
    // The same flag a node refuses by default, and runs once its operator allows it.
    expect(refusedArgs("llamacpp", ["--some-flag", "3"], argRules([]))).toContain("allow-list");
    expect(refusedArgs("llamacpp", ["--some-flag", "3"], argRules(["llamacpp=--some-flag"]))).toBeNull();
  });
});
