import { describe, expect, it } from "vitest";
import { byteRange } from "../../src/mirror/byteRange";

describe("byteRange over a 1000-byte file", () => {
  it.each([
    [undefined, { kind: "whole" }],
    ["bytes=0-99", { kind: "part", start: 0, end: 99 }],
    ["bytes=990-", { kind: "part", start: 990, end: 999 }],
    ["bytes=990-5000", { kind: "part", start: 990, end: 999 }],
    ["bytes=-10", { kind: "part", start: 990, end: 999 }],
    ["bytes=-5000", { kind: "part", start: 0, end: 999 }],
    [" bytes=5-5 ", { kind: "part", start: 5, end: 5 }],
    ["bytes=1000-", { kind: "unsatisfiable" }],
    ["bytes=1000-1001", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=99999999999999999999-", { kind: "unsatisfiable" }],
    ["bytes=9-1", { kind: "whole" }],
    ["bytes=-", { kind: "whole" }],
    ["bytes=0-1,4-5", { kind: "whole" }],
    ["items=0-1", { kind: "whole" }],
    ["bytes=a-b", { kind: "whole" }],
  ])("%j → %j", (header, expected) => {
    expect(byteRange(header, 1000)).toEqual(expected);
  });

  it("cannot serve any range of an empty file", () => {
    expect(byteRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(byteRange("bytes=-1", 0)).toEqual({ kind: "unsatisfiable" });
  });
});
