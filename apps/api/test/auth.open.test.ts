import { describe, expect, it } from "vitest";
import { errorOf, heartbeat, modelInput, useApi } from "./harness";
import { bearer, storeDump } from "./security-kit";

// A server without tokens (SPEC §4): it listens only on loopback and accepts every request there as
// "local". What guards it is that it answers only loopback names (DNS rebinding) and refuses
// changes from another site's page (CSRF). The first token created turns tokens on for good.

const api = useApi();

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  api.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("without tokens", () => {
  it("accepts every request as local, an admin, whatever credentials come with it", async () => {
    expect(await (await api.app.request("/api/v1/session")).json()).toEqual({
      name: "local",
      role: "admin",
      via: "open",
      tokensRequired: false,
    });
    const input = modelInput();
    expect((await post("/api/v1/models", input, bearer("llmgw_stale"))).status).toBe(201);
    expect((await post("/api/v1/agents/heartbeat", heartbeat())).status).toBe(200);
    const [entry] = await api.deps.store.audit.list({ model: input.name });
    expect(entry?.by).toBe("local");
  });

  it("answers only requests addressed to a loopback name (a rebound DNS name gets 403)", async () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"]) {
      expect((await api.app.request(`http://${host}:8080/api/v1/models`)).status, host).toBe(200);
    }
    const rebound = await api.app.request("http://attacker.example:8080/api/v1/models");
    expect((await errorOf(rebound, 403)).message).toContain("loopback");
    // The dashboard's files and liveness stay public: they hold nothing to steal.
    expect((await api.app.request("http://attacker.example:8080/healthz")).status).toBe(200);
  });

  it("refuses a change from another site's page, by Sec-Fetch-Site or, failing that, Origin", async () => {
    const node = heartbeat();
    await post("/api/v1/agents/heartbeat", node);
    const drain = `/api/v1/fleet/nodes/${node.node.name}/drain`;
    const before = await storeDump(api.deps, api.control);

    const forged: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "http://evil.example" },
      { origin: "null" },
    ];
    for (const headers of forged) {
      const res = await api.app.request(drain, { method: "POST", headers });
      expect((await errorOf(res, 403)).message, JSON.stringify(headers)).toContain("another site");
    }
    expect(await storeDump(api.deps, api.control)).toBe(before);

    const sameOrigin = { "sec-fetch-site": "same-origin", origin: "http://localhost" };
    expect((await api.app.request(drain, { method: "POST", headers: sameOrigin })).status).toBe(200);
    // Reading is not a change: another site's page cannot read the answer anyway (no CORS).
    expect(
      (await api.app.request("/api/v1/models", { headers: { "sec-fetch-site": "cross-site" } })).status,
    ).toBe(200);
  });
});

describe("the first token", () => {
  it("must be an admin's, so someone can still manage tokens once they are required", async () => {
    const error = await errorOf(await post("/api/v1/tokens", { name: "first", role: "viewer" }), 409);
    expect(error.fields).toEqual({ role: "the first token must be admin" });
    expect(await api.deps.store.tokens.list()).toEqual([]);
  });

  it("turns tokens on: from then on every request but the public ones needs one", async () => {
    const created = (await (await post("/api/v1/tokens", { name: "root", role: "admin" })).json()) as {
      token: string;
      createdBy: string;
    };
    expect(created.createdBy).toBe("local");

    const refused = await api.app.request("/api/v1/models");
    expect((await errorOf(refused, 401)).message).toContain("sign in");
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="llmgw"');
    expect((await api.app.request("/api/v1/models", { headers: bearer(created.token) })).status).toBe(200);
    expect((await api.app.request("/healthz")).status).toBe(200);
  });

  it("keeps an admin: the last admin token cannot be revoked while other tokens remain", async () => {
    const root = (await (await post("/api/v1/tokens", { name: "root", role: "admin" })).json()) as {
      token: string;
    };
    const admin = bearer(root.token);
    expect((await post("/api/v1/tokens", { name: "reader", role: "viewer" }, admin)).status).toBe(201);

    const kept = await api.app.request("/api/v1/tokens/root", { method: "DELETE", headers: admin });
    expect((await errorOf(kept, 409)).message).toContain("last admin");

    expect(
      (await api.app.request("/api/v1/tokens/reader", { method: "DELETE", headers: admin })).status,
    ).toBe(204);
    expect((await api.app.request("/api/v1/tokens/root", { method: "DELETE", headers: admin })).status).toBe(
      204,
    );
    // No token left: back to how the server started, every request on loopback accepted.
    expect((await api.app.request("/api/v1/models")).status).toBe(200);
  });
});
