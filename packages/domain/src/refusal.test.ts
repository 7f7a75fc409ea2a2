import { describe, expect, it } from "vitest";
import { refusalOf } from "./refusal";

describe("refusalOf", () => {
  it("reads the API's error shape: code, message and the string fields", () => {
    const body = { error: { code: "bad_request", message: "no", fields: { name: "taken", n: 3 } } };
    expect(refusalOf(400, JSON.stringify(body))).toEqual({
      status: 400,
      code: "bad_request",
      message: "no",
      fields: { name: "taken" },
      body,
    });
  });

  it("keeps fields named like Object's built-ins as fields", () => {
    const text =
      '{"error":{"code":"bad_request","message":"no","fields":{"__proto__":"not a field of this request","constructor":"x"}}}';
    const { fields } = refusalOf(400, text);
    expect(Object.keys(fields)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });

  it("gives a message for anything else a proxy may answer", () => {
    expect(refusalOf(502, "<html>bad gateway</html>")).toEqual({
      status: 502,
      code: null,
      message: "the server answered 502",
      fields: {},
      body: "<html>bad gateway</html>",
    });
    expect(refusalOf(500, "")).toMatchObject({ code: null, body: null, message: "the server answered 500" });
    expect(refusalOf(409, '{"error":"plain"}')).toMatchObject({ code: null, fields: {} });
  });
});
