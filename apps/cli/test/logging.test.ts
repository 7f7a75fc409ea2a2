import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { logSettings } from "@llmgw/log";
import { describe, expect, it } from "vitest";

// How serve, demo and agent choose their log lines: --log-format / --log-level, else
// LLMGW_LOG_FORMAT / LLMGW_LOG_LEVEL, else pretty on a terminal and JSON otherwise, at info.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("log settings", () => {
  it("are pretty on a terminal and JSON otherwise, at info, when nothing says", () => {
    expect(logSettings({}, {}, true)).toEqual({ format: "pretty", level: "info" });
    expect(logSettings({}, {}, false)).toEqual({ format: "json", level: "info" });
  });

  it("come from the environment, an empty variable being unset", () => {
    const env = { LLMGW_LOG_FORMAT: "json", LLMGW_LOG_LEVEL: "" };
    expect(logSettings({}, env, true)).toEqual({ format: "json", level: "info" });
  });

  it("come from the flags first", () => {
    const env = { LLMGW_LOG_FORMAT: "json", LLMGW_LOG_LEVEL: "error" };
    const flags = { "log-format": "pretty", "log-level": "debug" };
    expect(logSettings(flags, env, false)).toEqual({ format: "pretty", level: "debug" });
  });

  it("refuse what they do not know, naming where it came from", () => {
    expect(() => logSettings({ "log-format": "xml" }, {}, false)).toThrow(
      '--log-format wants one of json, pretty, got "xml"',
    );
    expect(() => logSettings({}, { LLMGW_LOG_LEVEL: "loud" }, false)).toThrow(
      /^LLMGW_LOG_LEVEL wants one of/,
    );
  });
});

describe("llmgw serve", () => {
  it("stops before starting anything on a log format it does not know", () => {
    const run = spawnSync(process.execPath, ["scripts/llmgw.mjs", "serve", "--log-format", "xml"], {
      cwd: ROOT,
      encoding: "utf8",
    });

    expect(run.status).toBe(1);
    expect(run.stderr).toContain('llmgw: --log-format wants one of json, pretty, got "xml"');
  });
});
