import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { Control } from "../src/control/control";
import { configFile, problemOf } from "./configFiles";
import { useApi } from "./harness";

// SPEC §10.5a and §5: the Hub's deadlines in llmgw.yaml, and the public answers that never carry a
// secret: a mirror.baseUrl with user info stops start-up naming the key, not echoing the URL, and
// no error of install.sh's quotes the configuration.

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("huggingface.timeoutSeconds and idleSeconds", () => {
  it("are 60 and 30 when not given, and read from the file", async () => {
    expect(loadConfig({}, {}).huggingface).toMatchObject({ timeoutSeconds: 60, idleSeconds: 30 });
    const file = await configFile("huggingface:\n  timeoutSeconds: 5\n  idleSeconds: 2\n");
    expect(loadConfig({ config: file }, {}).huggingface).toMatchObject({ timeoutSeconds: 5, idleSeconds: 2 });
  });

  it.each([
    ["timeoutSeconds", "0"],
    ["timeoutSeconds", "-1"],
    ["timeoutSeconds", "1.5"],
    ["timeoutSeconds", "soon"],
    ["idleSeconds", "0"],
    ["idleSeconds", "100000"],
  ])("refuse huggingface.%s: %s, naming the file, the line and the field", async (key, value) => {
    const file = await configFile(`huggingface:\n  ${key}: ${value}\n`);
    expect(problemOf(() => loadConfig({ config: file }, {}))).toMatch(
      new RegExp(`^${literally(file)}:2: huggingface\\.${key}: `),
    );
  });
});

describe("mirror.baseUrl with user info", () => {
  it.each(["http://user:hunter2@mirror.example:8080", "https://hunter2@mirror.example"])(
    "is refused at start-up naming the key, never echoing it (%s)",
    async (url) => {
      const file = await configFile(`mirror:\n  baseUrl: ${url}\n`);
      const problem = problemOf(() => loadConfig({ config: file }, {}));
      expect(problem).toMatch(
        new RegExp(`^${literally(file)}:2: mirror\\.baseUrl: must not hold a user name or password`),
      );
      expect(problem).not.toContain("hunter2");
      expect(problem).not.toContain("mirror.example");
    },
  );
});

describe("public answers", () => {
  const api = useApi();

  it("an anonymous GET /install.sh refused for its mirror.baseUrl names the key, not the value", async () => {
    const secret = "http://mirror.example:8080/llmgw?token=hunter2";
    const deps = {
      ...api.deps,
      config: {
        ...api.deps.config,
        mirror: { ...api.deps.config.mirror, baseUrl: secret, baseUrlSet: true },
      },
    };
    const agent = {
      version: "9.8.7",
      build: async () => ({ version: "9.8.7", bytes: Buffer.from("x"), sha256: "a".repeat(64) }),
    };
    const res = await createApp(deps, new Control(deps), { agent }).request(
      "http://gw.example:8080/install.sh",
    );
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).toContain("mirror.baseUrl");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("mirror.example");
  });
});
