import { createLogger } from "@llmgw/log";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app";
import { newToken, sha256Hex } from "../src/auth/secrets";
import { useGateway } from "./gateway-kit";

// Every answer carries an X-Request-Id (the client's when sane, a new one otherwise), refusals,
// errors and the request path's direct answers included; a 5xx is logged once, with that id.

const ADMIN = newToken();
const CLIENT = newToken();
const gw = useGateway({
  adminToken: ADMIN,
  yaml: [
    "tokens:",
    `  - { name: boss, role: admin, sha256: ${sha256Hex(ADMIN)} }`,
    `  - { name: app, role: client, sha256: ${sha256Hex(CLIENT)} }`,
  ].join("\n"),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const as = (token: string, requestId?: string) => ({
  authorization: `Bearer ${token}`,
  ...(requestId === undefined ? {} : { "x-request-id": requestId }),
});
const chat = (model: string, headers: Record<string, string>) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });

describe("the control plane", () => {
  it("makes an id for a request that brings none, a 401 included", async () => {
    const res = await gw.api.app.request("/api/v1/models");

    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });

  it("makes a new one for every request", async () => {
    const ids = await Promise.all(
      [1, 2].map(async () => (await gw.api.app.request("/healthz")).headers.get("x-request-id")),
    );

    expect(new Set(ids).size).toBe(2);
  });

  it("sends back a sane id the client gave, on a 404 too", async () => {
    const res = await gw.api.app.request("/api/v1/no-such-thing", { headers: as(ADMIN, "req-42.a_B") });

    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("req-42.a_B");
  });

  it.each([
    ["spaces", "a b"],
    ["markup", "<script>"],
    ["more than 128 characters", "a".repeat(129)],
    ["nothing", ""],
  ])("replaces an id with %s", async (_what, given) => {
    const res = await gw.api.app.request("/healthz", { headers: { "x-request-id": given } });

    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });
});

describe("the request path", () => {
  it("sends the id back on a direct answer", async () => {
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);

    const res = await chat(model.name, as(CLIENT, "trace-direct-1"));

    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("trace-direct-1");
    await res.text();
  });

  it("sends one on its refusals: 401 and 404", async () => {
    const unknownToken = await chat("any", as(newToken()));
    const unknownModel = await chat("no-such-model", as(CLIENT, "trace-404"));

    expect(unknownToken.status).toBe(401);
    expect(unknownToken.headers.get("x-request-id")).toMatch(UUID);
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.headers.get("x-request-id")).toBe("trace-404");
  });
});

describe("a server error", () => {
  it("is logged as one JSON line carrying the request id, the error and its stack", async () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", destination: { write: (line) => lines.push(line) } });
    const app = createApp({ ...gw.api.deps, log }, gw.api.control);
    const failing = vi
      .spyOn(gw.api.deps.world, "snapshot")
      .mockRejectedValueOnce(new Error("the store fell over"));

    const res = await app.request("/api/v1/models", { headers: as(ADMIN, "trace-500") });
    failing.mockRestore();

    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("trace-500");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.trimEnd()).not.toContain("\n");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: "error",
      msg: "unexpected error",
      requestId: "trace-500",
      method: "GET",
      path: "/api/v1/models",
      status: 500,
      err: { type: "Error", message: "the store fell over", stack: expect.stringContaining("at ") },
    });
  });

  it("on the request path is logged with its reason: a 503 says why", async () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", destination: { write: (line) => lines.push(line) } });
    const app = createApp({ ...gw.api.deps, log }, gw.api.control);
    const model = await gw.model({ scaling: { min: 0, max: 0, idleTimeoutSeconds: 300 } });

    const res = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", ...as(CLIENT, "trace-503") },
      body: JSON.stringify({ model: model.name, messages: [{ role: "user", content: "hi" }] }),
    });

    expect(res.status).toBe(503);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: "warn",
      msg: "request not served",
      requestId: "trace-503",
      status: 503,
      reason: expect.stringContaining("stopped"),
    });
  });

  it("is the only kind of answer logged: a success and a refusal write nothing", async () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", destination: { write: (line) => lines.push(line) } });
    const app = createApp({ ...gw.api.deps, log }, gw.api.control);

    expect((await app.request("/api/v1/models", { headers: as(ADMIN) })).status).toBe(200);
    expect((await app.request("/api/v1/models")).status).toBe(401);
    expect(lines).toEqual([]);
  });
});
