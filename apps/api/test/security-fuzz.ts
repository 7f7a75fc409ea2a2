import fc from "fast-check";
import { newToken } from "../src/auth/secrets";
import type { Role } from "../src/config";
import { sampleFor } from "./security-bodies";
import { HOSTILE_TEXT, longText, WRONG } from "./security-fuzz-values";
import { bearer, type Endpoint, SECRETS } from "./security-kit";

// Bad requests, generated: broken bodies (every field's wrong values, stray keys at any depth,
// control characters and lone surrogates in any string, malformed or oversized JSON, the wrong
// media type), hostile path segments and query strings,
// hostile headers, absurd heartbeats and random methods on random paths. Every change-making
// request carries at least one thing the server must refuse, so after any number of them the
// store must be exactly as it was. Shared by security.fuzz.test.ts and scripts/fuzz.ts.

export type FuzzRequest = {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
};

/** Names the fixtures use; generated path segments never equal them (so a DELETE finds nothing). */
export const FIXTURE = {
  model: "fuzz-fixture-model",
  node: "fuzz-fixture-node",
  owner: "fuzz-owner",
} as const;

const JSON_HEADERS = { "content-type": "application/json" };
const as = (role: Role) => bearer(SECRETS[role]);

/**
 * A request each body-taking endpoint would accept: the starting point every breaker spoils. Which
 * endpoints take one comes from the contract; one with no sample throws, naming it.
 */
const validBody = (key: string): Record<string, unknown> | null => sampleFor(key)?.body() ?? null;

/** A hostile path segment, never one of the fixtures' names. */
export const segment = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 40 }).map(encodeURIComponent),
    fc.constantFrom(
      "..",
      "%2e%2e",
      "%00",
      "%",
      "%E0%A4%A",
      "%ZZ",
      "a%2Fb",
      "__proto__",
      "constructor",
      "%F0%9F%92%A9",
      "a%00b",
      "%1B%5B2J",
      "%C2%9B31m",
      "%ED%A0%80",
      "%7F",
      "NaN",
      "-1",
      "1e999",
      longText(3000),
    ),
  )
  .filter((s) => s !== "" && !(Object.values(FIXTURE) as string[]).includes(s));

/** What an HTTP header can carry at all (the HTTP layer refuses the rest before any handler). */
const headerSafe = (v: string) => v.replace(/[^\t\x20-\x7e]/g, "?");

const strayKey = fc.string({ minLength: 1, maxLength: 12 }).map((k) => `zz_${k}`);
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Sets `value` at `path` in a copy of `body`. */
function setAt(
  body: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): Record<string, unknown> {
  const copy: Record<string, unknown> = structuredClone(body);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== "object" || next === null) throw new Error(`no object at ${path.join(".")}`);
    at = next as Record<string, unknown>;
  }
  at[path.at(-1) ?? ""] = value;
  return copy;
}

/** Maps of free keys (labels, node selectors): a stray key there is a valid entry, not a breaker. */
const FREE_KEYS = new Set(["labels", "nodeSelector"]);

/** The objects inside a body, as key paths ([] is the body itself): where a stray key can hide. */
function objectPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [];
  const here = Array.isArray(value) || FREE_KEYS.has(path.at(-1) ?? "") ? [] : [path];
  return [...here, ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...path, k]))];
}

/** The strings inside a body, as key paths: where a control character or lone surrogate can go. */
function stringPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value === "string") return [path];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]));
}

function valueAt(body: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], body);
}

/** One or more breakers applied to a valid body: the result is refused, whatever else it holds. */
function brokenBody(key: string): fc.Arbitrary<{ body: string; contentType: string; why: string }> {
  const base = validBody(key) ?? {};
  const wrong = WRONG[key];
  if (!wrong) throw new Error(`${key} takes a body but has no wrong values in test/security-fuzz-values.ts`);
  const fieldBreak = fc
    .constantFrom(...Object.entries(wrong).flatMap(([path, values]) => values.map((v) => [path, v] as const)))
    .map(([path, value]) => ({
      body: setAt(base, path.split("."), value),
      why: `${path} = ${JSON.stringify(value)?.slice(0, 40)}`,
    }));
  const strayBreak = fc.tuple(fc.constantFrom(...objectPaths(base)), strayKey, anyJson).map(([at, k, v]) => ({
    body: setAt(base, [...at, k], v),
    why: `stray ${[...at, k].join(".")}`,
  }));
  // SPEC §4: no string field takes a control character or a lone surrogate, wherever it sits.
  const texts = stringPaths(base);
  const textBreak = fc
    .tuple(fc.constantFrom(...(texts.length > 0 ? texts : [[]])), fc.constantFrom(...HOSTILE_TEXT), fc.nat())
    .map(([at, bad, n]) => {
      const text = String(valueAt(base, at));
      const i = n % (text.length + 1);
      return {
        body: setAt(base, at, `${text.slice(0, i)}${bad}${text.slice(i)}`),
        why: `text ${at.join(".")}`,
      };
    });
  const breaks = texts.length > 0 ? [fieldBreak, strayBreak, textBreak] : [fieldBreak, strayBreak];
  const asJson = fc.oneof(...breaks).map(({ body, why }) => ({
    body: JSON.stringify(body),
    contentType: "application/json",
    why,
  }));
  const raw = fc.oneof(
    fc
      .constantFrom("{", "[1,", "nul", '{"a":1}}', "\u0000", "", "[]", "42", '"text"', "null")
      .map((body) => ({
        body,
        contentType: "application/json",
        why: "not an object",
      })),
    fc.constant({
      body: `${"[".repeat(5000)}${"]".repeat(5000)}`,
      contentType: "application/json",
      why: "deep",
    }),
    fc.constant({
      body: `{"pad":"${"x".repeat(1024 * 1024)}"}`,
      contentType: "application/json",
      why: "1 MiB+",
    }),
    fc
      .constantFrom(
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/jsonx",
      )
      .map((contentType) => ({ body: JSON.stringify(base), contentType, why: `sent as ${contentType}` })),
  );
  return fc.oneof({ arbitrary: asJson, weight: 6 }, { arbitrary: raw, weight: 1 });
}

function pathOf(endpoint: Endpoint, fill: (name: string) => string): string {
  return endpoint.path.replace(/:([a-z]+)/g, (_, name: string) => fill(name)).replace(/\*$/, "x");
}

/** Who a request for this endpoint is sent as, so most get past authorization to the checks behind. */
const roleFor = (key: string): Role =>
  key.includes("/agents/")
    ? "agent"
    : key.includes("/models") || key.includes("/fleet")
      ? "operator"
      : "admin";

const fixtureName = (endpoint: Endpoint) => (name: string) =>
  name === "owner" ? FIXTURE.owner : endpoint.path.includes("/nodes/") ? FIXTURE.node : FIXTURE.model;

const isSafe = (method: string) => ["GET", "HEAD", "OPTIONS"].includes(method);

/** Headers that make any request a refusal: bad or missing credentials, or another site's page. */
const refusingHeaders = fc.oneof(
  fc.constant({}),
  fc.string({ unit: "binary-ascii", maxLength: 60 }).map((v) => ({ authorization: headerSafe(v) })),
  fc.constant({ authorization: `Bearer ${newToken()}` }),
  fc.constant({ authorization: "Bearer" }),
  fc.constant({ ...as("admin"), "sec-fetch-site": "cross-site" }),
  fc.constant({ ...as("admin"), origin: "http://evil.example" }),
  fc
    .string({ unit: "binary-ascii", maxLength: 60 })
    .map((v) => ({ cookie: `llmgw_session=${encodeURIComponent(v)}` })),
);

/** Headers that are merely odd: the request's fate is decided elsewhere. */
const noiseHeaders = fc
  .record(
    {
      "if-match": fc.string({ unit: "binary-ascii", maxLength: 20 }),
      "last-event-id": fc.string({ unit: "binary-ascii", maxLength: 20 }),
      "x-forwarded-for": fc.constantFrom("1.2.3.4", "::1, 10.0.0.1", "garbage"),
      "x-forwarded-proto": fc.constantFrom("https", "gopher"),
      accept: fc.constantFrom("*/*", "text/event-stream", "application/xml"),
    },
    { requiredKeys: [] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, headerSafe(v)])));

/** The endpoints whose bodies are broken: those the contract says take a checked body. */
export const bodyEndpoints = (endpoints: readonly Endpoint[]): Endpoint[] =>
  endpoints.filter((e) => validBody(e.key) !== null);

/** Every kind of bad request, over the app's own endpoint list. */
export function badRequests(endpoints: readonly Endpoint[]): fc.Arbitrary<FuzzRequest> {
  const withBodies = bodyEndpoints(endpoints);
  const concrete = endpoints.filter((e) => e.method !== "ALL");

  const bodyAttack = fc.constantFrom(...withBodies).chain((e) =>
    brokenBody(e.key).map(({ body, contentType, why }) => ({
      kind: `body ${e.key}: ${why}`,
      method: e.method,
      path: pathOf(e, fixtureName(e)),
      headers: { ...as(roleFor(e.key)), "content-type": contentType, "if-match": '"1"' },
      body,
    })),
  );

  const pathAttack = fc.tuple(fc.constantFrom(...concrete), segment, noiseHeaders).map(([e, seg, noise]) => ({
    kind: `path ${e.key}`,
    method: e.method,
    path: pathOf(e, () => seg),
    headers: { ...noise, ...as(roleFor(e.key)) },
  }));

  const queryAttack = fc
    .tuple(
      fc.constantFrom(...concrete.filter((e) => e.method === "GET")),
      fc.array(
        fc.tuple(
          fc.constantFrom("limit", "model", "ctxPool", "lastEventId", "x", "__proto__"),
          fc.oneof(
            fc.constantFrom("-1", "abc", "1e9", "2000", "0", longText(300)),
            fc.string({ maxLength: 20 }),
          ),
        ),
        { minLength: 1, maxLength: 4 },
      ),
    )
    .map(([e, pairs]) => ({
      kind: `query ${e.key}`,
      method: "GET",
      path: `${pathOf(e, fixtureName(e))}?${new URLSearchParams(pairs).toString()}`,
      headers: as("viewer"),
    }));

  const headerAttack = fc
    .tuple(fc.constantFrom(...concrete), refusingHeaders, noiseHeaders)
    .map(([e, refusing, noise]) => ({
      kind: `headers ${e.key}`,
      method: e.method,
      path: pathOf(e, fixtureName(e)),
      headers: { ...noise, ...refusing, ...(validBody(e.key) ? JSON_HEADERS : {}) },
      ...(validBody(e.key) ? { body: JSON.stringify(validBody(e.key)) } : {}),
    }));

  const rawAttack = fc
    .tuple(
      fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND"),
      fc.array(segment, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      anyJson,
    )
    .map(([method, segments, api, body]) => ({
      kind: "raw",
      method,
      path: `${api ? "/api/v1/" : "/"}${segments.join("/")}`,
      headers: { ...as("admin"), ...JSON_HEADERS },
      ...(isSafe(method) ? {} : { body: JSON.stringify(body) }),
    }));

  return fc.oneof(
    { arbitrary: bodyAttack, weight: 5 },
    { arbitrary: pathAttack, weight: 2 },
    { arbitrary: queryAttack, weight: 1 },
    { arbitrary: headerAttack, weight: 2 },
    { arbitrary: rawAttack, weight: 1 },
  );
}
