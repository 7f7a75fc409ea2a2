import {
  type APIError,
  AuthenticationError,
  BadRequestError,
  PermissionDeniedError,
  RateLimitError,
} from "openai";
import { describe, expect, it } from "vitest";
import { newToken, sha256Hex } from "../src/auth/secrets";
import { AppError } from "../src/errors";
import { useGateway } from "./gateway-kit";

// The request path refuses in OpenAI's shape (SPEC §7.6), so an `openai` SDK raises its own error
// classes carrying our codes; the authorization middleware's refusals included.

const CLIENT = newToken();
const VIEWER = newToken();
const ADMIN = newToken();
const gw = useGateway({
  adminToken: ADMIN,
  yaml: [
    "tokens:",
    `  - { name: boss, role: admin, sha256: ${sha256Hex(ADMIN)} }`,
    `  - { name: app, role: client, sha256: ${sha256Hex(CLIENT)} }`,
    `  - { name: reader, role: viewer, sha256: ${sha256Hex(VIEWER)} }`,
  ].join("\n"),
});
const client = () => gw.client({ apiKey: CLIENT });
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e as APIError,
  );
const chat = (model: string, apiKey = CLIENT) =>
  gw.client({ apiKey }).chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

async function served() {
  const model = await gw.model();
  const engine = await gw.engine();
  await gw.ready(model, [engine]);
  return { model, engine };
}

describe("refusals in OpenAI's shape", () => {
  it("401 invalid_api_key for a token llmgw does not know", async () => {
    const err = await refusal(chat("any", newToken()));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({
      status: 401,
      code: "invalid_api_key",
      type: "authentication_error",
      param: null,
    });
  });

  it("403 for a token whose role may not call the request path", async () => {
    const err = await refusal(chat("any", VIEWER));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, code: "forbidden" });
  });

  it("400 invalid_request for a body that is not JSON, or names no model", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${CLIENT}`, "content-type": "application/json" },
      body: "{not json",
    });
    const noModel = await refusal(client().chat.completions.create({ messages: [] } as never));

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: expect.any(String),
        type: "invalid_request_error",
        code: "invalid_request",
        param: null,
      },
    });
    expect(noModel).toBeInstanceOf(BadRequestError);
    expect(noModel).toMatchObject({ status: 400, code: "invalid_request" });
  });

  it("404 model_not_found for a name that is neither a model nor an alias", async () => {
    const err = await refusal(chat("nobody-serves-this"));
    expect(err).toMatchObject({ status: 404, code: "model_not_found", type: "not_found_error" });
  });

  it("413 past gateway.bodyLimitMB; the control plane's 1 MiB limit does not apply", async () => {
    const { model, engine } = await served();
    const big = "x ".repeat(800_000);
    const ok = await client().chat.completions.create({
      model: model.name,
      messages: [{ role: "user", content: big }],
    });
    expect(ok.choices).toHaveLength(1);
    expect(engine.received).toHaveLength(1);

    gw.api.config.gateway.bodyLimitMB = 1;
    try {
      const err = await refusal(
        client().chat.completions.create({ model: model.name, messages: [{ role: "user", content: big }] }),
      );
      expect(err).toMatchObject({ status: 413, code: "payload_too_large" });
    } finally {
      gw.api.config.gateway.bodyLimitMB = 32;
    }
    expect(engine.received).toHaveLength(1);
  });
});

describe("client admission", () => {
  // It holds nothing for the request (issue 40: the release it returned was never used); what a
  // request holds until it ends, its budget's reservation, is budget.test.ts's.
  it("asks for the token and the resolved model, once per request", async () => {
    const { model } = await served();
    const seen: string[] = [];
    gw.admission = {
      admit: (token, admitted) => {
        seen.push(`${token?.name}:${admitted.name}`);
      },
    };

    await chat(model.aliases[0] ?? model.name);

    expect(seen).toEqual([`app:${model.name}`]);
  });

  it("passes its 403 model_not_allowed and 429 rate_limited (with Retry-After) to the client", async () => {
    const { model, engine } = await served();
    gw.admission = {
      admit: () => {
        throw new AppError({ code: "model_not_allowed", message: "app may not use this model" });
      },
    };
    const notAllowed = await refusal(chat(model.name));
    gw.admission = {
      admit: () => {
        throw new AppError({
          code: "rate_limited",
          message: "app sent too many",
          headers: {
            "Retry-After": "7",
          },
        });
      },
    };
    const limited = await refusal(chat(model.name));

    expect(notAllowed).toBeInstanceOf(PermissionDeniedError);
    expect(notAllowed).toMatchObject({ status: 403, code: "model_not_allowed" });
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: "rate_limited" });
    expect(limited?.headers?.get("retry-after")).toBe("7");
    expect(engine.received).toEqual([]);
  });
});
