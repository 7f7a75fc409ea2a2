import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/auth/secrets";
import type { Role } from "../src/config";
import { errorOf, modelInput, useApi } from "./harness";
import { configName, requestAs, SECRETS, storeDump, tokensYaml } from "./security-kit";

// Tokens made and revoked by admins through the API (SPEC §4 "Tokens and roles"): the secret is
// shown once and stored only as its SHA-256; llmgw.yaml's tokens are listed and read-only.

const api = useApi({ yaml: tokensYaml() });
let sequence = 0;
const fresh = (prefix: string) => `${prefix}-${++sequence}`;

const request = (role: Role | string, method: string, path: string, body?: unknown) =>
  requestAs(api.app, role in SECRETS ? SECRETS[role as Role] : role, method, path, body);

type Created = { name: string; role: Role; origin: string; token: string; createdBy: string };

async function createToken(role: Role, name = fresh(`made-${role}`)): Promise<Created> {
  const res = await request("admin", "POST", "/api/v1/tokens", { name, role });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}

describe("POST /tokens", () => {
  it("shows a new token once: llmgw_ and 32 random bytes, not cached, usable at once", async () => {
    const res = await request("admin", "POST", "/api/v1/tokens", { name: "ci-reader", role: "viewer" });
    const created = (await res.json()) as Created;

    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("location")).toBe("/api/v1/tokens/ci-reader");
    expect(created).toMatchObject({
      name: "ci-reader",
      role: "viewer",
      origin: "runtime",
      createdBy: "cfg-admin",
    });
    expect(created.token).toMatch(/^llmgw_[A-Za-z0-9_-]{43}$/);
    expect((await request(created.token, "GET", "/api/v1/models")).status).toBe(200);
    expect((await request(created.token, "POST", "/api/v1/models", modelInput())).status).toBe(403);
  });

  it("stores only the token's SHA-256, and no listing or audit entry holds either", async () => {
    const created = await createToken("operator");

    const stored = await api.deps.store.tokens.get(created.name);
    expect(stored?.sha256).toBe(sha256Hex(created.token));
    const listing = await (await request("admin", "GET", "/api/v1/tokens")).text();
    const everything = `${await storeDump(api.deps, api.control)}${listing}`;
    expect(everything).not.toContain(created.token);
    expect(listing).not.toContain(sha256Hex(created.token));
    expect(listing).not.toContain(sha256Hex(SECRETS.admin));
    const [entry] = await api.deps.store.audit.list({ model: created.name });
    expect(entry).toMatchObject({
      by: "cfg-admin",
      action: "token.create",
      field: "role",
      after: "operator",
    });
  });

  it("makes two tokens of one request different, whatever the name", async () => {
    const a = await createToken("viewer");
    const b = await createToken("viewer");
    expect(a.token).not.toBe(b.token);
  });

  it.each([
    [{ name: "", role: "viewer" }, "name"],
    [{ name: "has space", role: "viewer" }, "name"],
    [{ name: "local", role: "admin" }, "name"],
    [{ name: "x", role: "root" }, "role"],
    [{ name: "x", role: "viewer", token: "llmgw_mine" }, "token"],
    [{ name: "x", role: "viewer", sha256: "0".repeat(64) }, "sha256"],
  ])("refuses %j naming the field %s (the secret is never the client's)", async (body, field) => {
    const error = await errorOf(await request("admin", "POST", "/api/v1/tokens", body), 400);
    expect(Object.keys(error.fields ?? {})).toContain(field);
    expect(await api.deps.store.tokens.list()).toEqual([]);
  });

  it("refuses a name taken, by a runtime token or by one in llmgw.yaml (409 name_taken)", async () => {
    const taken = await createToken("viewer");
    for (const name of [taken.name, configName("viewer")]) {
      const error = await errorOf(
        await request("admin", "POST", "/api/v1/tokens", { name, role: "admin" }),
        409,
      );
      expect(error).toMatchObject({ code: "name_taken", fields: { name: expect.any(String) } });
    }
    expect((await api.deps.store.tokens.get(taken.name))?.role).toBe("viewer");
  });
});

describe("GET /tokens", () => {
  it("lists llmgw.yaml's tokens and the runtime ones: name, role, origin, dates, never a secret", async () => {
    const created = await createToken("agent", "rack-7");
    const tokens = (await (await request("admin", "GET", "/api/v1/tokens")).json()) as Record<
      string,
      unknown
    >[];

    expect(tokens.map((t) => [t.name, t.role, t.origin])).toEqual([
      ["cfg-admin", "admin", "config"],
      ["cfg-agent", "agent", "config"],
      ["cfg-client", "client", "config"],
      ["cfg-operator", "operator", "config"],
      ["cfg-viewer", "viewer", "config"],
      ["rack-7", "agent", "runtime"],
    ]);
    for (const token of tokens) {
      expect(Object.keys(token).sort()).toEqual([
        "concurrency",
        "createdAt",
        "createdBy",
        "lastUsedAt",
        "models",
        "name",
        "node",
        "origin",
        "requestsPerMinute",
        "role",
        "tokensPerDay",
        "tokensUsedToday",
      ]);
    }
    expect(tokens.at(-1)).toMatchObject({ createdBy: "cfg-admin", lastUsedAt: null });
    expect(created.origin).toBe("runtime");
  });

  it("records a token's last successful use, not a refused one", async () => {
    const created = await createToken("viewer");
    const lastUsed = async () => (await api.deps.store.tokens.get(created.name))?.lastUsedAt ?? null;

    expect((await request(created.token, "PUT", "/api/v1/quotas/x", {})).status).toBe(403);
    expect(await lastUsed()).toBeNull();
    expect((await request(created.token, "GET", "/api/v1/classes")).status).toBe(200);
    expect(await lastUsed()).not.toBeNull();
  });
});

describe("DELETE /tokens/:name", () => {
  it("revokes: the token is refused from the next request on, and the revocation is audited", async () => {
    const created = await createToken("operator");
    expect((await request(created.token, "GET", "/api/v1/models")).status).toBe(200);

    const res = await request("admin", "DELETE", `/api/v1/tokens/${created.name}`);

    expect(res.status).toBe(204);
    const refused = await request(created.token, "GET", "/api/v1/models");
    expect((await errorOf(refused, 401)).code).toBe("unauthorized");
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="llmgw", error="invalid_token"');
    const [entry] = await api.deps.store.audit.list({ model: created.name });
    expect(entry).toMatchObject({ by: "cfg-admin", action: "token.revoke", before: "operator", after: null });
  });

  it("ends every session signed in with the token", async () => {
    const created = await createToken("viewer");
    const signIn = await api.app.request("/api/v1/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: created.token }),
    });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await api.app.request("/api/v1/session", { headers: { cookie } })).status).toBe(200);

    await request("admin", "DELETE", `/api/v1/tokens/${created.name}`);

    expect((await api.app.request("/api/v1/session", { headers: { cookie } })).status).toBe(401);
    expect(await api.deps.store.sessions.list()).toEqual([]);
  });

  it("refuses llmgw.yaml's tokens (409 declared_in_config) and a name it does not know (404)", async () => {
    const declared = await errorOf(
      await request("admin", "DELETE", `/api/v1/tokens/${configName("viewer")}`),
      409,
    );
    expect(declared.code).toBe("declared_in_config");
    expect(declared.message).toContain("llmgw.yaml");
    expect((await request(SECRETS.viewer, "GET", "/api/v1/models")).status).toBe(200);

    await errorOf(await request("admin", "DELETE", "/api/v1/tokens/nobody"), 404);
  });
});

describe("audit entries name the token", () => {
  it("as `by` for a change made with it", async () => {
    const created = await createToken("operator", "deploy-bot");
    const input = modelInput();

    await request(created.token, "POST", "/api/v1/models", input);
    const res = await request("operator", "POST", `/api/v1/fleet/nodes/nowhere/drain`);

    expect(res.status).toBe(404);
    const model = (await (await request("viewer", "GET", `/api/v1/models/${input.name}`)).json()) as {
      updatedBy: string;
    };
    expect(model.updatedBy).toBe("deploy-bot");
    const [entry] = await api.deps.store.audit.list({ model: input.name });
    expect(entry?.by).toBe("deploy-bot");
  });
});
