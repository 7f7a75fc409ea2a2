import { describe, expect, it } from "vitest";
import { createLogger, type LogFormat } from "./logger";

// One event, one line: JSON for a collector, a readable line for a terminal.

function logged(format: LogFormat, level: "info" | "warn" = "info") {
  const lines: string[] = [];
  const log = createLogger({ format, level, destination: { write: (line) => lines.push(line) } });
  return { log, text: () => lines.join("") };
}

describe("the JSON format", () => {
  it("writes one object a line, with level name, ISO time, message and fields", () => {
    const { log, text } = logged("json");

    log.info({ model: "llama-3.1-8b", replicas: 2 }, "model woken");

    const lines = text().split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      msg: "model woken",
      model: "llama-3.1-8b",
      replicas: 2,
    });
  });

  it("writes nothing below its level", () => {
    const { log, text } = logged("json", "warn");

    log.info("not worth it");

    expect(text()).toBe("");
  });
});

describe("the pretty format", () => {
  it("prints one readable line: time, level, message, key=value", () => {
    const { log, text } = logged("pretty");

    log.info({ model: "llama-3.1-8b", url: "http://127.0.0.1:8080", note: "two words" }, "llmgw ready");

    expect(text()).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}llmgw ready model=llama-3\.1-8b url=http:\/\/127\.0\.0\.1:8080 note="two words"\n$/,
    );
  });

  it("puts an error's message on the line and its stack frames indented under it", () => {
    const { log, text } = logged("pretty");

    log.error({ err: new Error("the store fell over"), requestId: "r-1" }, "unexpected error");

    const [line, ...frames] = text().trimEnd().split("\n");
    expect(line).toMatch(/ ERROR unexpected error requestId=r-1 err="the store fell over"$/);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^ {4}at /);
  });

  it("keeps a message with a line break on one line", () => {
    const { log, text } = logged("pretty");

    log.warn("forged\n12:00:00.000 INFO  all is well");

    expect(text().trimEnd().split("\n")).toHaveLength(1);
    expect(text()).toContain('"forged\\n12:00:00.000 INFO  all is well"');
  });
});
