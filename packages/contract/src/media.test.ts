import { describe, expect, it } from "vitest";
import { isEventStream } from "./media";

describe("isEventStream", () => {
  it.each([
    "text/event-stream",
    "text/event-stream; charset=utf-8",
    "Text/Event-Stream",
    " text/event-stream;",
  ])("%s is one", (type) => expect(isEventStream(type)).toBe(true));
  it.each([undefined, null, "", "application/json", "text/event-streams", "text/plain; x=text/event-stream"])(
    "%s is not",
    (type) => expect(isEventStream(type)).toBe(false),
  );
});
