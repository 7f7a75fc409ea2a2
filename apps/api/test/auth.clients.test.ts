import { describe, expect, it } from "vitest";
import type { Role } from "../src/config";
import { errorOf, useApi } from "./harness";
import { CONFIG_CLIENT_LIMITS, requestAs, SECRETS, storeDump, tokensYaml } from "./security-kit";

// Client tokens (SPEC §4 "Tokens and roles"): they call the request path only, and may carry the
// models they may call and two limits. Those fields belong to client tokens alone.

const api = useApi({ yaml: tokensYaml() });
let sequence = 0;
const fresh = (prefix: string) => `${prefix}-${++sequence}`;

const request = (secret: string, method: string, path: string, body?: unknown) =>
  requestAs(api.app, secret, method, path, body);

const create = (body: Record<string, unknown>) => request(SECRETS.admin, "POST", "/api/v1/tokens", body);

async function listed(name: string): Promise<Record<string, unknown> | undefined> {
  const tokens = (await (await request(SECRETS.admin, "GET", "/api/v1/tokens")).json()) as Record<
    string,
    unknown
  >[];
  return tokens.find((t) => t.name === name);
}

describe("POST /tokens for a client", () => {
  it("keeps its models and limits, answers and lists them", async () => {
    const name = fresh("app");
    const limits = { models: ["chat", "llama:8b"], requestsPerMinute: 120, concurrency: 4 };

    const res = await create({ name, role: "client", ...limits });

    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ name, role: "client", node: null, ...limits });
    expect(await listed(name)).toMatchObject({ role: "client", ...limits });
    const [entry] = await api.deps.store.audit.list({ model: name });
    expect(entry).toMatchObject({ action: "token.create", after: "client" });
  });

  it("without limits is a token for every model, unlimited (nulls, also when sent as null)", async () => {
    const plain = fresh("plain");
    const nulls = fresh("nulls");
    expect((await create({ name: plain, role: "client" })).status).toBe(201);
    expect(
      (
        await create({
          name: nulls,
          role: "client",
          models: null,
          requestsPerMinute: null,
          concurrency: null,
        })
      ).status,
    ).toBe(201);

    for (const name of [plain, nulls]) {
      expect(await listed(name)).toMatchObject({ models: null, requestsPerMinute: null, concurrency: null });
    }
  });

  it.each(["viewer", "operator", "admin", "agent"] satisfies Role[])(
    "refuses models and limits on a %s token, naming each field",
    async (role) => {
      const before = await storeDump(api.deps, api.control);
      const res = await create({
        name: fresh(role),
        role,
        models: ["chat"],
        requestsPerMinute: 5,
        concurrency: 1,
      });

      const error = await errorOf(res, 400);
      expect(error.fields).toEqual({
        models: "only a client token lists models",
        requestsPerMinute: "only a client token has a request limit",
        concurrency: "only a client token has a concurrency limit",
      });
      expect(await storeDump(api.deps, api.control)).toBe(before);
    },
  );

  it("refuses a node on a client token", async () => {
    const error = await errorOf(await create({ name: fresh("c"), role: "client", node: "gpu-1" }), 400);
    expect(error.fields).toEqual({ node: "only an agent token is bound to a node" });
  });

  it.each([
    ["an empty list", { models: [] }, "models"],
    ["a name outside the model-name rule", { models: ["chat", "no spaces"] }, "models.1"],
    ["a name listed twice", { models: ["a", "b", "a"] }, "models.2"],
    ["more than 256 models", { models: Array.from({ length: 257 }, (_, i) => `m${i}`) }, "models"],
    ["zero requests a minute", { requestsPerMinute: 0 }, "requestsPerMinute"],
    ["a fraction of a request", { requestsPerMinute: 1.5 }, "requestsPerMinute"],
    ["more than a million a minute", { requestsPerMinute: 1_000_001 }, "requestsPerMinute"],
    ["a negative concurrency", { concurrency: -1 }, "concurrency"],
    ["a concurrency given as text", { concurrency: "4" }, "concurrency"],
    ["a concurrency above 100000", { concurrency: 100_001 }, "concurrency"],
  ])("refuses %s (400 naming the field)", async (_what, fields, field) => {
    const error = await errorOf(await create({ name: fresh("bad"), role: "client", ...fields }), 400);
    expect(Object.keys(error.fields ?? {})).toEqual([field]);
  });

  it("takes 256 models, names and aliases alike", async () => {
    const models = Array.from({ length: 256 }, (_, i) => `model-${i}`);
    const res = await create({ name: fresh("wide"), role: "client", models });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { models: string[] }).models).toEqual(models);
  });
});

describe("a client token", () => {
  it("from llmgw.yaml is listed with its limits", async () => {
    expect(await listed("cfg-client")).toMatchObject({
      role: "client",
      origin: "config",
      ...CONFIG_CLIENT_LIMITS,
    });
    expect(await listed("cfg-viewer")).toMatchObject({
      models: null,
      requestsPerMinute: null,
      concurrency: null,
    });
  });

  it("reads nothing under /api and cannot sign in to the dashboard (403)", async () => {
    const res = await create({ name: fresh("app"), role: "client" });
    const { token } = (await res.json()) as { token: string };

    const read = await errorOf(await request(token, "GET", "/api/v1/models"), 403);
    expect(read.message).toContain("may only call the request path");
    const signIn = await api.app.request("/api/v1/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    expect((await errorOf(signIn, 403)).message).toContain("cannot sign in to the dashboard");
  });
});
