import { randomBytes } from "node:crypto";
import { makeModel } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { ClientLimits } from "./clientLimits";
import type { KnownToken } from "./tokenBook";

// ClientLimits (SPEC §4, §7.6), with a clock the tests move: no sleeps.

function aClient(overrides: Partial<KnownToken> = {}): KnownToken {
  return {
    name: `app-${randomBytes(4).toString("hex")}`,
    role: "client",
    sha256: randomBytes(32).toString("hex"),
    origin: "runtime",
    createdAt: null,
    createdBy: "admin",
    lastUsedAt: null,
    node: null,
    models: null,
    requestsPerMinute: null,
    concurrency: null,
    tokensPerDay: null,
    ...overrides,
  };
}

function fakeClock(start = Date.UTC(2025, 0, 1, 12, 0, 0)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** The refusal `admit` throws, or a failure when it admits. */
function refusalOf(admit: () => unknown): AppError {
  try {
    admit();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected a refusal, the request was admitted");
}

describe("ClientLimits: models", () => {
  const limits = new ClientLimits(fakeClock().now);

  it("admits a listed model, by its name or any of its aliases", () => {
    const chat = makeModel({ name: "llama-8b", aliases: ["chat", "default"] });
    expect(() => limits.admit(aClient({ models: ["llama-8b"] }), chat)).not.toThrow();
    expect(() => limits.admit(aClient({ models: ["other", "default"] }), chat)).not.toThrow();
  });

  it("refuses a model neither named nor aliased in the list: 403 model_not_allowed", () => {
    const refusal = refusalOf(() =>
      limits.admit(aClient({ name: "app", models: ["chat"] }), makeModel({ name: "big", aliases: ["x"] })),
    );
    expect(refusal).toMatchObject({ status: 403, code: "model_not_allowed" });
    expect(refusal.message).toBe("the token app may not call big: it may call chat");
  });

  it("admits every model for no list, a null token (no tokens on the server) and other roles", () => {
    const model = makeModel();
    expect(() => limits.admit(aClient(), model)).not.toThrow();
    expect(() => limits.admit(null, model)).not.toThrow();
    expect(() => limits.admit(aClient({ role: "operator" }), model)).not.toThrow();
  });
});

describe("ClientLimits: requests a minute", () => {
  it("admits requestsPerMinute in any 60 s, then 429 with the seconds until the oldest leaves", () => {
    const clock = fakeClock();
    const limits = new ClientLimits(clock.now);
    const token = aClient({ requestsPerMinute: 3 });
    const model = makeModel();

    limits.admit(token, model);
    clock.advance(20_000);
    limits.admit(token, model);
    limits.admit(token, model);
    clock.advance(10_000);

    const refusal = refusalOf(() => limits.admit(token, model));
    expect(refusal).toMatchObject({ status: 429, code: "rate_limited", headers: { "Retry-After": "30" } });
    expect(refusal.message).toContain("3 requests a minute");

    clock.advance(29_000);
    expect(refusalOf(() => limits.admit(token, model)).headers).toEqual({ "Retry-After": "1" });
    clock.advance(1_000);
    expect(() => limits.admit(token, model)).not.toThrow();
    expect(refusalOf(() => limits.admit(token, model)).headers).toEqual({ "Retry-After": "20" });
  });

  it("counts admitted requests only: refusals do not push the wait further", () => {
    const clock = fakeClock();
    const limits = new ClientLimits(clock.now);
    const token = aClient({ requestsPerMinute: 1 });
    limits.admit(token, makeModel());
    for (let i = 0; i < 50; i += 1) refusalOf(() => limits.admit(token, makeModel()));

    clock.advance(60_000);

    expect(() => limits.admit(token, makeModel())).not.toThrow();
  });

  it("counts each token on its own, a token made again under its name afresh", () => {
    const limits = new ClientLimits(fakeClock().now);
    const first = aClient({ name: "app", requestsPerMinute: 1 });
    limits.admit(first, makeModel());

    expect(() => limits.admit(aClient({ requestsPerMinute: 1 }), makeModel())).not.toThrow();
    expect(() =>
      limits.admit({ ...first, sha256: randomBytes(32).toString("hex") }, makeModel()),
    ).not.toThrow();
    expect(refusalOf(() => limits.admit(first, makeModel())).status).toBe(429);
  });

  it("does not count a model the token may not call", () => {
    const limits = new ClientLimits(fakeClock().now);
    const token = aClient({ models: ["chat"], requestsPerMinute: 1 });
    expect(refusalOf(() => limits.admit(token, makeModel({ name: "big" }))).status).toBe(403);
    expect(() => limits.admit(token, makeModel({ name: "chat" }))).not.toThrow();
  });
});

describe("ClientLimits: concurrency", () => {
  // The gateway counts a token's requests in flight (TokenFlights); the limit is checked against it.
  it("admits while fewer than `concurrency` are in flight, then 429 Retry-After 1", () => {
    const limits = new ClientLimits(fakeClock().now);
    const token = aClient({ concurrency: 2 });
    const model = makeModel();
    expect(() => limits.admit(token, model, 0)).not.toThrow();
    expect(() => limits.admit(token, model, 1)).not.toThrow();

    const refusal = refusalOf(() => limits.admit(token, model, 2));
    expect(refusal).toMatchObject({ status: 429, code: "rate_limited", headers: { "Retry-After": "1" } });
    expect(refusal.message).toContain("2 requests in flight");
  });

  it("a refusal by concurrency does not count against the minute", () => {
    const limits = new ClientLimits(fakeClock().now);
    const token = aClient({ concurrency: 1, requestsPerMinute: 2 });
    limits.admit(token, makeModel(), 0);
    expect(refusalOf(() => limits.admit(token, makeModel(), 1)).headers).toEqual({ "Retry-After": "1" });

    expect(() => limits.admit(token, makeModel(), 0)).not.toThrow();
  });

  it("when the minute is full too, Retry-After is the minute's wait", () => {
    const limits = new ClientLimits(fakeClock().now);
    const token = aClient({ concurrency: 1, requestsPerMinute: 1 });
    limits.admit(token, makeModel(), 0);
    expect(refusalOf(() => limits.admit(token, makeModel(), 1)).headers).toEqual({ "Retry-After": "60" });
  });
});

describe("ClientLimits: memory", () => {
  it("keeps nothing for tokens without a minute's limit, and forgets idle tokens as more arrive", () => {
    const clock = fakeClock();
    const limits = new ClientLimits(clock.now);
    for (let i = 0; i < 100; i += 1) limits.admit(aClient({ models: ["m"] }), makeModel({ name: "m" }));
    for (let i = 0; i < 100; i += 1) limits.admit(aClient({ concurrency: 1 }), makeModel());
    expect(limits.tracked).toBe(0);

    const busy = aClient({ requestsPerMinute: 1 });
    limits.admit(busy, makeModel());
    for (let i = 0; i < 1000; i += 1) limits.admit(aClient({ requestsPerMinute: 5 }), makeModel());
    clock.advance(30_000);
    for (let i = 0; i < 1000; i += 1) limits.admit(aClient({ requestsPerMinute: 5 }), makeModel());
    clock.advance(31_000);
    for (let i = 0; i < 1000; i += 1) limits.admit(aClient({ requestsPerMinute: 5 }), makeModel());

    expect(limits.tracked).toBeLessThanOrEqual(2001);
  });
});
