import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/auth/secrets";
import { SESSION_MAX_SECONDS } from "../src/auth/sessionBook";
import { errorOf, heartbeat, modelInput, useApi } from "./harness";
import { bearer, SECRETS, storeDump, tokensYaml } from "./security-kit";
import { EventStream } from "./sse";

// The browser's sign-in (SPEC §4): a token pasted once becomes an httpOnly, SameSite=Strict cookie
// naming a server-side session that ends after idle time, at sign-out, or when its token is revoked.

const api = useApi({ yaml: tokensYaml() });
const TTL_MS = 12 * 60 * 60 * 1000;
const open: EventStream[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A request from a client at `address` (what the node server's socket would say). */
const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });
let addresses = 0;
const freshAddress = () => `10.0.0.${++addresses}`;

async function signIn(token: string, init: { url?: string; headers?: Record<string, string> } = {}) {
  return api.app.request(
    init.url ?? "/api/v1/session",
    {
      method: "POST",
      headers: { "content-type": "application/json", ...init.headers },
      body: JSON.stringify({ token }),
    },
    from(freshAddress()),
  );
}

async function cookieFor(token: string): Promise<string> {
  const res = await signIn(token);
  expect(res.status, await res.clone().text()).toBe(200);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({
  headers: { cookie, ...headers },
});
const later = (ms: number) => {
  const at = Date.now() + ms;
  api.deps.now = () => new Date(at);
};

describe("POST /session", () => {
  it("signs in with a token: who and what role, and an httpOnly SameSite=Strict cookie", async () => {
    const res = await signIn(SECRETS.operator);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: "cfg-operator",
      role: "operator",
      via: "session",
      tokensRequired: true,
    });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^llmgw_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
    expect(cookie).not.toMatch(/Max-Age|Expires/);
  });

  it("marks the cookie Secure over HTTPS, or behind a proxy that says the client used it", async () => {
    const direct = await signIn(SECRETS.viewer, { url: "https://llmgw.example/api/v1/session" });
    const proxied = await signIn(SECRETS.viewer, { headers: { "x-forwarded-proto": "https" } });

    expect(direct.headers.get("set-cookie")).toContain("Secure");
    expect(proxied.headers.get("set-cookie")).toContain("Secure");
  });

  it("stores the SHA-256 of the session id, never the id", async () => {
    const cookie = await cookieFor(SECRETS.viewer);
    const id = cookie.replace("llmgw_session=", "");

    const [session] = await api.deps.store.sessions.list();
    expect(session).toMatchObject({ idSha256: sha256Hex(id), token: "cfg-viewer" });
    expect(await storeDump(api.deps, api.control)).not.toContain(id);
  });

  it("refuses a wrong token (401), an agent or client token (403) and a body with more than the token (400)", async () => {
    expect((await errorOf(await signIn("llmgw_wrong"), 401)).code).toBe("unauthorized");
    expect((await errorOf(await signIn(SECRETS.agent), 403)).message).toContain("agent");
    expect((await errorOf(await signIn(SECRETS.client), 403)).message).toContain(
      "client tokens call the request path",
    );
    const extra = await api.app.request(
      "/api/v1/session",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: SECRETS.admin, role: "admin" }),
      },
      from(freshAddress()),
    );
    expect((await errorOf(extra, 400)).fields).toEqual({ role: "not a field of this request" });
    expect(await api.deps.store.sessions.list()).toEqual([]);
  });

  it("allows 10 attempts a minute per address, then 429 with Retry-After, others unaffected", async () => {
    const address = freshAddress();
    const attempt = (a = address) =>
      api.app.request(
        "/api/v1/session",
        { method: "POST", headers: { "content-type": "application/json" }, body: '{"token":"llmgw_guess"}' },
        from(a),
      );
    for (let i = 0; i < 10; i++) expect((await attempt()).status).toBe(401);

    const limited = await attempt();
    const error = await errorOf(limited, 429);
    expect(error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempt(freshAddress())).status).toBe(401);
    later(61_000);
    expect((await attempt()).status).toBe(401);
  });
});

describe("a session cookie", () => {
  it("authenticates reads, GET /session and the event stream", async () => {
    const cookie = await cookieFor(SECRETS.viewer);

    expect(await (await api.app.request("/api/v1/session", withCookie(cookie))).json()).toEqual({
      name: "cfg-viewer",
      role: "viewer",
      via: "session",
      tokensRequired: true,
    });
    expect((await api.app.request("/api/v1/models", withCookie(cookie))).status).toBe(200);
    const stream = await EventStream.of(await api.app.request("/api/v1/events", withCookie(cookie)));
    open.push(stream);
    await api.app.request("/api/v1/agents/heartbeat", {
      method: "POST",
      headers: { ...bearer(SECRETS.agent), "content-type": "application/json" },
      body: JSON.stringify(heartbeat()),
    });
    expect((await stream.next()).event).toBe("node.changed");
  });

  it("carries the token's role: a viewer's change is 403 and stores nothing", async () => {
    const cookie = await cookieFor(SECRETS.viewer);
    const before = await storeDump(api.deps, api.control);

    const res = await api.app.request("/api/v1/models", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(modelInput()),
    });

    expect((await errorOf(res, 403)).message).toContain("operator");
    expect(await storeDump(api.deps, api.control)).toBe(before);
  });

  it("needs X-Requested-With or a JSON body for a change (CSRF), a bearer token does not", async () => {
    const cookie = await cookieFor(SECRETS.operator);
    const created = await api.app.request("/api/v1/models", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(modelInput({ name: "csrf-target", scaling: { min: 0, max: 1 } })),
    });
    expect(created.status).toBe(201);
    const wake = "/api/v1/models/csrf-target/wake";

    const forged = await api.app.request(wake, { method: "POST", headers: { cookie } });
    expect((await errorOf(forged, 403)).message).toContain("X-Requested-With");
    expect(api.control.wakes.has("csrf-target")).toBe(false);

    const fromDashboard = await api.app.request(wake, {
      method: "POST",
      headers: { cookie, "x-requested-with": "llmgw" },
    });
    expect(fromDashboard.status).toBe(202);
    expect((await api.app.request(wake, { method: "POST", headers: bearer(SECRETS.operator) })).status).toBe(
      202,
    );
  });

  it("ends after the idle timeout (401, cookie cleared) and lives on while used", async () => {
    const cookie = await cookieFor(SECRETS.viewer);
    const ask = () => api.app.request("/api/v1/session", withCookie(cookie));

    later(TTL_MS * 0.9);
    expect((await ask()).status).toBe(200);
    later(TTL_MS * 1.8);
    expect((await ask()).status).toBe(200);
    later(TTL_MS * 2.8 + 1000);
    const expired = await ask();

    expect((await errorOf(expired, 401)).message).toContain("sign in again");
    expect(expired.headers.get("set-cookie")).toMatch(
      /^llmgw_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict/,
    );
  });

  it("ends a week after sign-in however busy", async () => {
    const cookie = await cookieFor(SECRETS.viewer);
    for (let hours = 10; hours < SESSION_MAX_SECONDS / 3600; hours += 10) {
      later(hours * 3600 * 1000);
      expect((await api.app.request("/api/v1/session", withCookie(cookie))).status).toBe(200);
    }
    later(SESSION_MAX_SECONDS * 1000 + 1000);
    expect((await api.app.request("/api/v1/session", withCookie(cookie))).status).toBe(401);
  });

  it("is not kept alive by an event stream, which closes when the session would expire", async () => {
    api.deps.config.sessionTtlSeconds = 1;
    try {
      const cookie = await cookieFor(SECRETS.viewer);
      const res = await api.app.request("/api/v1/events", withCookie(cookie));
      const reader = res.body?.getReader();
      if (!reader) throw new Error("no event stream");
      const started = Date.now();
      let chunk = await reader.read();
      while (!chunk.done) chunk = await reader.read();

      expect(Date.now() - started).toBeLessThan(3000);
      expect((await api.app.request("/api/v1/session", withCookie(cookie))).status).toBe(401);
    } finally {
      api.deps.config.sessionTtlSeconds = TTL_MS / 1000;
    }
  });
});

describe("DELETE /session", () => {
  it("signs out: the cookie is cleared and no longer accepted", async () => {
    const cookie = await cookieFor(SECRETS.admin);

    const res = await api.app.request("/api/v1/session", { method: "DELETE", headers: { cookie } });

    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/^llmgw_session=; Max-Age=0/);
    expect((await api.app.request("/api/v1/session", withCookie(cookie))).status).toBe(401);
    expect(await api.deps.store.sessions.list()).toEqual([]);
  });

  it("closes the session's open event stream, and a revoked token's", async () => {
    const mine = await cookieFor(SECRETS.viewer);
    const created = (await (
      await api.app.request("/api/v1/tokens", {
        method: "POST",
        headers: { ...bearer(SECRETS.admin), "content-type": "application/json" },
        body: JSON.stringify({ name: "watcher", role: "viewer" }),
      })
    ).json()) as { token: string };
    const theirs = await cookieFor(created.token);
    /** Opens a stream; the function it returns says whether the stream ended within 5 s. */
    const ended = async (cookie: string) => {
      const res = await api.app.request("/api/v1/events", withCookie(cookie));
      const reader = res.body?.getReader();
      if (!reader) throw new Error("no event stream");
      await reader.read();
      return async () => {
        const deadline = Date.now() + 5000;
        for (;;) {
          const left = deadline - Date.now();
          if (left <= 0) return false;
          const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), left));
          const chunk = await Promise.race([reader.read(), timeout]);
          if (chunk === null) return false;
          if (chunk.done) return true;
        }
      };
    };
    const mineEnded = await ended(mine);
    const theirsEnded = await ended(theirs);

    await api.app.request("/api/v1/session", { method: "DELETE", headers: { cookie: mine } });
    await api.app.request("/api/v1/tokens/watcher", { method: "DELETE", headers: bearer(SECRETS.admin) });

    expect(await mineEnded()).toBe(true);
    expect(await theirsEnded()).toBe(true);
  });
});
