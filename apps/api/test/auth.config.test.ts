import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/auth/secrets";
import { DEFAULT_SESSION_TTL_SECONDS, loadConfig } from "../src/config";
import { configFile, problemOf } from "./configFiles";

// The file's `tokens:` and the session timeout (SPEC §4): a token the server would misread stops
// start-up naming the file and the entry.

const hash = (text: string) => sha256Hex(text);
const token = (name: string, sha256: string, role = "viewer") =>
  `  - { name: ${name}, role: ${role}, sha256: ${sha256} }`;

describe("tokens in llmgw.yaml", () => {
  it("are read with their hashes in lower case, whatever case the file uses", async () => {
    const file = await configFile(`tokens:\n${token("ops", hash("a").toUpperCase(), "operator")}\n`);
    expect(loadConfig({ config: file }, {}).tokens).toEqual([
      { name: "ops", role: "operator", sha256: hash("a") },
    ]);
  });

  it.each([
    [
      "a name used twice",
      `${token("ops", hash("a"))}\n${token("ops", hash("b"))}`,
      'tokens[1].name: "ops" is already tokens[0]',
    ],
    [
      "one token twice",
      `${token("a", hash("x"))}\n${token("b", hash("x"))}`,
      "tokens[1].sha256: the same token as tokens[0]",
    ],
    ["a reserved name", token("local", hash("x")), "tokens[0].name"],
    ["a role llmgw does not have", token("x", hash("x"), "root"), "tokens[0].role"],
    [
      "models on a token that is not a client's",
      `  - { name: x, role: operator, sha256: ${hash("x")}, models: [chat] }`,
      "tokens[0].models: only a client token lists models",
    ],
    [
      "a request limit below 1",
      `  - { name: x, role: client, sha256: ${hash("x")}, requestsPerMinute: 0 }`,
      "tokens[0].requestsPerMinute",
    ],
    [
      "a model listed twice",
      `  - { name: x, role: client, sha256: ${hash("x")}, models: [chat, chat] }`,
      "tokens[0].models[1]: chat is listed twice",
    ],
    [
      "the token itself instead of its hash",
      token("x", "llmgw_secret"),
      "tokens[0].sha256: expected the 64 hex digits",
    ],
  ])("refuse %s, naming the entry", async (_what, lines, expected) => {
    const file = await configFile(`tokens:\n${lines}\n`);
    expect(problemOf(() => loadConfig({ config: file }, {}))).toContain(expected);
  });
});

describe("client tokens in llmgw.yaml", () => {
  it("carry their models and limits; each is optional", async () => {
    const file = await configFile(
      `tokens:\n  - { name: app, role: client, sha256: ${hash("a")}, models: [chat, embed], requestsPerMinute: 120, concurrency: 4 }\n${token("plain", hash("b"), "client")}\n`,
    );
    expect(loadConfig({ config: file }, {}).tokens).toEqual([
      {
        name: "app",
        role: "client",
        sha256: hash("a"),
        models: ["chat", "embed"],
        requestsPerMinute: 120,
        concurrency: 4,
      },
      { name: "plain", role: "client", sha256: hash("b") },
    ]);
  });
});

describe("the session timeout", () => {
  it("is 12 hours unless the file or LLMGW_SESSION_TTL_SECONDS says otherwise (the environment wins)", async () => {
    const file = await configFile("sessionTtlSeconds: 600\n");
    expect(loadConfig({}, {}).sessionTtlSeconds).toBe(DEFAULT_SESSION_TTL_SECONDS);
    expect(DEFAULT_SESSION_TTL_SECONDS).toBe(43_200);
    expect(loadConfig({ config: file }, {}).sessionTtlSeconds).toBe(600);
    expect(loadConfig({ config: file }, { LLMGW_SESSION_TTL_SECONDS: "5" }).sessionTtlSeconds).toBe(5);
  });

  it("refuses what is not whole seconds", () => {
    for (const value of ["abc", "0", "1.5", "-3"]) {
      expect(problemOf(() => loadConfig({}, { LLMGW_SESSION_TTL_SECONDS: value }))).toContain(
        "LLMGW_SESSION_TTL_SECONDS",
      );
    }
  });
});
