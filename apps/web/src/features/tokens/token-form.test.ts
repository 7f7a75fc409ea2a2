import { describe, expect, it } from "vitest";
import {
  budgetText,
  EMPTY_FORM,
  formErrorOf,
  limitsText,
  type TokenFormInput,
  tokenFormSchema,
} from "./token-form";

// The form's values → the body of POST /tokens, through the API's own schema.

const form = (overrides: Partial<TokenFormInput>): TokenFormInput => ({
  ...EMPTY_FORM,
  name: "app",
  ...overrides,
});
const pathsOf = (result: ReturnType<typeof tokenFormSchema.safeParse>) =>
  result.success ? [] : result.error.issues.map((i) => i.path.join("."));

describe("tokenFormSchema", () => {
  it("turns a client's line of models and its limits into the request body", () => {
    const parsed = tokenFormSchema.parse(
      form({ role: "client", models: " chat, embed ,", requestsPerMinute: 60, concurrency: null }),
    );
    expect(parsed).toEqual({ name: "app", role: "client", models: ["chat", "embed"], requestsPerMinute: 60 });
  });

  it("leaves blanks out: a client for every model, without limits; an agent bound on first use", () => {
    expect(tokenFormSchema.parse(form({ role: "client" }))).toEqual({ name: "app", role: "client" });
    expect(tokenFormSchema.parse(form({ role: "agent", node: " " }))).toEqual({ name: "app", role: "agent" });
    expect(tokenFormSchema.parse(form({ role: "agent", node: "gpu-1" }))).toEqual({
      name: "app",
      role: "agent",
      node: "gpu-1",
    });
  });

  it("drops the fields of another role, as the form hides them", () => {
    const parsed = tokenFormSchema.parse(
      form({ role: "viewer", node: "gpu-1", models: "chat", requestsPerMinute: 5, concurrency: 2 }),
    );
    expect(parsed).toEqual({ name: "app", role: "viewer" });
  });

  it("refuses what the API refuses, at the field the API names", () => {
    expect(pathsOf(tokenFormSchema.safeParse(form({ name: "no spaces" })))).toEqual(["name"]);
    expect(pathsOf(tokenFormSchema.safeParse(form({ name: "local" })))).toEqual(["name"]);
    expect(pathsOf(tokenFormSchema.safeParse(form({ role: "client", models: "a, b, a" })))).toEqual([
      "models.2",
    ]);
    expect(pathsOf(tokenFormSchema.safeParse(form({ role: "client", requestsPerMinute: 0 })))).toEqual([
      "requestsPerMinute",
    ]);
    expect(pathsOf(tokenFormSchema.safeParse(form({ role: "client", concurrency: 1.5 })))).toEqual([
      "concurrency",
    ]);
  });
});

describe("formErrorOf", () => {
  it("places a server's field error, naming the model of models.N", () => {
    const input = { name: "app", role: "client" as const, models: ["chat", "bad name"] };
    expect(formErrorOf("models.1", "not a name", input)).toEqual({
      field: "models",
      message: '"bad name": not a name',
    });
    expect(formErrorOf("concurrency", "at least 1", input)).toEqual({
      field: "concurrency",
      message: "at least 1",
    });
    expect(formErrorOf("body", "what", input)).toBeNull();
  });
});

it("limitsText says the limits in a few words", () => {
  expect(limitsText({ requestsPerMinute: 60, concurrency: 4 })).toBe("60 a minute, 4 at once");
  expect(limitsText({ requestsPerMinute: null, concurrency: null })).toBe("none");
  expect(limitsText({ requestsPerMinute: null, concurrency: null, tokensPerDay: 20_000 })).toBe(
    "20,000 tokens a day",
  );
});

it("budgetText says a budget's day in numbers, the share capped at 100%", () => {
  expect(budgetText(19_850, 20_000)).toBe("19,850 of 20,000 tokens used today (99%)");
  expect(budgetText(20_100, 20_000)).toBe("20,100 of 20,000 tokens used today (100%)");
});

it("takes tokensPerDay for a client token with the API's own rule, and drops it for another role", () => {
  const input = { name: "app", node: "", models: "", requestsPerMinute: null, concurrency: null };
  expect(tokenFormSchema.parse({ ...input, role: "client", tokensPerDay: 20_000 })).toEqual({
    name: "app",
    role: "client",
    tokensPerDay: 20_000,
  });
  expect(tokenFormSchema.safeParse({ ...input, role: "client", tokensPerDay: 0 }).success).toBe(false);
  expect(tokenFormSchema.parse({ ...input, role: "viewer", tokensPerDay: 5 })).toEqual({
    name: "app",
    role: "viewer",
  });
});
