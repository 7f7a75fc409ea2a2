import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { topLevelMembers } from "./jsonScan";

// The scan agrees with JSON.parse: it accepts exactly the JSON objects JSON.parse reads, and a
// member it finds decodes to what JSON.parse gives for that key.

const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

function viaScan(text: string, keys: readonly string[]) {
  const found = topLevelMembers(bytesOf(text), keys);
  if (found === null) return null;
  const bytes = Buffer.from(text, "utf8");
  return Object.fromEntries(
    [...found].map(([key, m]) => [key, JSON.parse(bytes.subarray(m.start, m.end).toString("utf8"))]),
  );
}

function viaParse(text: string, keys: readonly string[]) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]]));
}

const KEYS = ["model", "user"] as const;

describe("topLevelMembers", () => {
  it("finds the top-level model, not one inside a string or a nested object before it", () => {
    const text = JSON.stringify({
      messages: [{ role: "user", content: 'say "model": "wrong" and {"model":"nested"}' }],
      options: { model: "nested" },
      model: "right",
      user: "u-1",
    });
    expect(viaScan(text, KEYS)).toEqual({ model: "right", user: "u-1" });
  });

  it("keeps the last of a repeated key and reads keys written with escapes, as JSON.parse does", () => {
    for (const text of ['{"model":"a","model":"b"}', '{"mod\\u0065l":"c"}', '{"user":1}', "{ }", "  {}  "])
      expect(viaScan(text, KEYS), text).toEqual(viaParse(text, KEYS));
  });

  it.each([
    "",
    "[]",
    '"model"',
    "{",
    '{"model":"a"',
    '{"model":"a",}',
    '{"model":"a"} x',
    '{"a":[1,2,]}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":-}',
    '{"a":"\\x"}',
    '{"a":"\\u12g4"}',
    '{"a":"tab\there"}',
    '{"a":tru}',
    '{"a" 1}',
    "{a:1}",
  ])("refuses %j, which is not a JSON object", (text) => {
    expect(viaScan(text, KEYS)).toBeNull();
    expect(viaParse(text, KEYS)).toBeNull();
  });

  it("agrees with JSON.parse on long strings of every byte a run of text may hold or end at", () => {
    const run = "lower UPPER 0123 ~\u007f é 漢字 😀 ".repeat(200);
    for (const inside of ["", "\\n", '\\"', "\\u00e9", "\n", "\u0001", "\u001f", "\t", '"', "\\"]) {
      const text = `{"model":"m","messages":[{"content":"${run}${inside}${run}"}],"user":"u"}`;
      expect(viaScan(text, KEYS)).toEqual(viaParse(text, KEYS));
    }
    // Cut inside the run: no closing quote.
    expect(viaScan(`{"model":"${run}`, KEYS)).toBeNull();
  });

  it("agrees with JSON.parse on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(viaScan(text, KEYS)).toEqual(viaParse(text, KEYS));
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with JSON.parse on objects with model and user among other members", () => {
    const member = fc.oneof(fc.constant("model"), fc.constant("user"), fc.string());
    fc.assert(
      fc.property(fc.array(fc.tuple(member, fc.jsonValue()), { maxLength: 6 }), (pairs) => {
        const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
        expect(viaScan(text, KEYS)).toEqual(viaParse(text, KEYS));
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with JSON.parse on text cut or changed anywhere", () => {
    const base = JSON.stringify({
      model: "m",
      messages: [{ content: 'a"b\\c\u00e9', n: -1.5e3 }],
      x: [true, null],
    });
    fc.assert(
      fc.property(
        fc.nat(base.length),
        fc.nat(base.length),
        fc.string({ maxLength: 2 }),
        (from, to, insert) => {
          const text = base.slice(0, Math.min(from, to)) + insert + base.slice(Math.max(from, to));
          expect(viaScan(text, KEYS)).toEqual(viaParse(text, KEYS));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
