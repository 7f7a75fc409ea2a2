import { afterEach, describe, expect, it, vi } from "vitest";
import { PARSED_WHOLE_BYTES } from "../src/gateway/request";
import { useGateway } from "./gateway-kit";

// What the request path reads of a request and passes on (SPEC §7.1, §7.5a): the request's id
// reaches the engine, and a large body is routed by its top-level `model` without being parsed
// whole, whatever looks like a model earlier in it.

const gw = useGateway();

afterEach(() => {
  vi.restoreAllMocks();
});

const chat = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("the request's id", () => {
  it("reaches the engine as X-Request-Id, the same one the answer carries", async () => {
    const model = await gw.model({ scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    const body = JSON.stringify({ model: model.name, messages: [{ role: "user", content: "hi" }] });

    const made = await chat(body);
    const kept = await chat(body, { "x-request-id": "trace-7.a_B" });
    const replaced = await chat(body, { "x-request-id": "<script>" });

    const sent = engine.received.map((r) => r.headers["x-request-id"]);
    expect(sent).toEqual([
      made.headers.get("x-request-id"),
      kept.headers.get("x-request-id"),
      replaced.headers.get("x-request-id"),
    ]);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe("trace-7.a_B");
    expect(sent[2]).not.toBe("<script>");
  });
});

describe("in process (app.request)", () => {
  it("answers a HEAD as the GET without its body", async () => {
    const res = await gw.api.app.request("/v1/models", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe("");
  });
});

describe("a large body", () => {
  it("is routed by its top-level model, not one in a string or a nested object before it, and not parsed whole", async () => {
    const scaling = { min: 1, max: 1, idleTimeoutSeconds: 900 };
    const [real, decoy] = [await gw.model({ scaling }), await gw.model({ scaling })];
    const [realEngine, decoyEngine] = [await gw.engine(), await gw.engine()];
    await gw.ready(real, [realEngine]);
    await gw.ready(decoy, [decoyEngine]);
    const body = JSON.stringify({
      messages: [
        { role: "user", content: `"model": "${decoy.name}"` },
        { role: "user", content: "x".repeat(4 * PARSED_WHOLE_BYTES) },
      ],
      tool_choice: "model",
      metadata: { model: decoy.name, user: "someone-else" },
      model: real.name,
    });
    // Every JSON.parse of a long text, and whether the request path made it.
    const parse = JSON.parse;
    const long: string[] = [];
    vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
      if (text.length > PARSED_WHOLE_BYTES) long.push(new Error().stack ?? "");
      return parse(text, reviver);
    });

    const res = await chat(body);

    expect(res.status).toBe(200);
    expect(realEngine.received).toHaveLength(1);
    expect(decoyEngine.received).toHaveLength(0);
    expect(realEngine.received[0]?.text).toBe(body);
    expect(
      long.filter((stack) => stack.includes("/gateway/")),
      "the gateway parsed the body whole",
    ).toEqual([]);
  });

  it("is still refused when it is not JSON, or names no model at the top", async () => {
    const padding = "x".repeat(2 * PARSED_WHOLE_BYTES);
    const broken = await chat(`{"model":"m","messages":[{"content":"${padding}"}],}`);
    const unnamed = await chat(JSON.stringify({ messages: [{ content: padding, model: "m" }] }));
    const list = await chat(JSON.stringify([{ model: "m", content: padding }]));

    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      error: { code: "invalid_request", message: "the body is not valid JSON" },
    });
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toMatchObject({
      error: { code: "invalid_request", message: expect.stringContaining("names no model") },
    });
    expect(list.status).toBe(400);
    expect(await list.json()).toMatchObject({
      error: { code: "invalid_request", message: "the body must be a JSON object" },
    });
  });
});
