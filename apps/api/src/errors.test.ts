import { errorCodeSchema } from "@llmgw/domain";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { API_REFUSALS, AppError, asRefusal, respondError } from "./errors";

describe("the /api edge's refusals", () => {
  it("has a status for every error code the API may answer with", () => {
    expect(Object.keys(API_REFUSALS).sort()).toEqual([...errorCodeSchema.options].sort());
  });

  it("takes a refusal's status from its code, unless the refusal says more", () => {
    expect(new AppError({ code: "precondition_failed", message: "stale" }).status).toBe(412);
    expect(new AppError({ status: 415, code: "bad_request", message: "send JSON" }).status).toBe(415);
  });

  it("answers anything thrown in the one shape, saying nothing of an unknown error's cause", async () => {
    const app = new Hono();
    app.onError(respondError);
    app.get("/refused", () => {
      throw new AppError({
        code: "rate_limited",
        message: "slow down",
        extra: { limit: 10 },
        headers: { "Retry-After": "3" },
      });
    });
    app.get("/hono", () => {
      throw new HTTPException(400, { message: "malformed JSON" });
    });
    app.get("/broken", () => {
      throw new Error("SELECT secret FROM tokens");
    });

    const refused = await app.request("/refused");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("3");
    expect(await refused.json()).toEqual({
      limit: 10,
      error: { code: "rate_limited", message: "slow down" },
    });

    const hono = await app.request("/hono");
    expect(hono.status).toBe(400);
    expect(await hono.json()).toEqual({
      error: { code: "bad_request", message: "malformed JSON", fields: { body: "malformed JSON" } },
    });

    const broken = await app.request("/broken");
    expect(broken.status).toBe(500);
    expect(await broken.text()).not.toContain("secret");
    expect(asRefusal(new Error("x")).code).toBe("internal");
  });
});
