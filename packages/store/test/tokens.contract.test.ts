import { createHash, randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { StoredSession } from "../src/repos/sessions";
import type { StoredToken } from "../src/repos/tokens";
import { backendFor, openFor, useStore } from "./backends";
import { describeOnEachDatabase, describeOnPostgres } from "./testStore";

let sequence = 0;
const hash = () => createHash("sha256").update(randomBytes(32)).digest("hex");

type Made = Omit<
  StoredToken,
  "lastUsedAt" | "node" | "models" | "requestsPerMinute" | "concurrency" | "tokensPerDay"
>;
const NO_LIMITS = { models: null, requestsPerMinute: null, concurrency: null, tokensPerDay: null } as const;

function aToken(overrides: Partial<Made> = {}): Made {
  return {
    name: `token-${++sequence}`,
    role: "viewer",
    sha256: hash(),
    createdAt: "2025-01-01T10:00:00.000Z",
    createdBy: "local",
    ...overrides,
  };
}

function aSession(token: string, overrides: Partial<StoredSession> = {}): StoredSession {
  return {
    idSha256: hash(),
    token,
    tokenSha256: hash(),
    createdAt: "2025-01-01T10:00:00.000Z",
    lastSeenAt: "2025-01-01T10:00:00.000Z",
    ...overrides,
  };
}

describeOnEachDatabase("tokens and sessions on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  it("keeps a token by name and by hash, never used until touched", async () => {
    const token = aToken({ role: "operator" });
    expect(await store.tokens.any()).toBe(false);

    expect(await store.tokens.insert(token)).toEqual({
      ...token,
      lastUsedAt: null,
      node: null,
      ...NO_LIMITS,
    });

    expect(await store.tokens.any()).toBe(true);
    expect(await store.tokens.get(token.name)).toMatchObject({ role: "operator" });
    expect(await store.tokens.findByHash(token.sha256)).toMatchObject({ name: token.name });
    expect(await store.tokens.findByHash(hash())).toBeNull();
  });

  it("refuses a second token of the same name (null, nothing changed)", async () => {
    const first = aToken();
    await store.tokens.insert(first);

    expect(await store.tokens.insert(aToken({ name: first.name, role: "admin" }))).toBeNull();
    expect(await store.tokens.list()).toEqual([{ ...first, lastUsedAt: null, node: null, ...NO_LIMITS }]);
  });

  it("refuses a role the API does not know and a hash that is not 64 hex digits", async () => {
    await expect(store.tokens.insert(aToken({ role: "root" }))).rejects.toThrow();
    await expect(store.tokens.insert(aToken({ sha256: "abc" }))).rejects.toThrow();
  });

  it("touch only moves the last use forward", async () => {
    const token = aToken();
    await store.tokens.insert(token);

    await store.tokens.touch(token.name, "2025-01-02T00:00:00.000Z");
    await store.tokens.touch(token.name, "2025-01-01T12:00:00.000Z");

    expect((await store.tokens.get(token.name))?.lastUsedAt).toBe("2025-01-02T00:00:00.000Z");
  });

  it("removing a token ends its sessions and no one else's", async () => {
    const gone = aToken();
    const kept = aToken();
    await store.tokens.insert(gone);
    await store.tokens.insert(kept);
    await store.sessions.insert(aSession(gone.name));
    const other = await store.sessions.insert(aSession(kept.name));

    expect(await store.tokens.remove(gone.name)).toBe(true);
    expect(await store.tokens.remove(gone.name)).toBe(false);

    expect(await store.sessions.list()).toEqual([other]);
    expect((await store.tokens.list()).map((t) => t.name)).toEqual([kept.name]);
  });

  it("sessions: found by id hash, touched forward, removed one by one or when expired", async () => {
    const fresh = await store.sessions.insert(
      aSession("ops", { createdAt: "2025-01-01T10:00:00.000Z", lastSeenAt: "2025-01-01T11:00:00.000Z" }),
    );
    const idle = await store.sessions.insert(aSession("ops", { lastSeenAt: "2025-01-01T10:00:00.000Z" }));
    const old = await store.sessions.insert(
      aSession("ops", { createdAt: "2024-01-01T00:00:00.000Z", lastSeenAt: "2025-01-01T11:00:00.000Z" }),
    );

    await store.sessions.touch(fresh.idSha256, "2025-01-01T12:00:00.000Z");
    expect((await store.sessions.get(fresh.idSha256))?.lastSeenAt).toBe("2025-01-01T12:00:00.000Z");

    expect(await store.sessions.removeExpired("2025-01-01T10:30:00.000Z", "2024-06-01T00:00:00.000Z")).toBe(
      2,
    );
    expect((await store.sessions.list()).map((s) => s.idSha256)).toEqual([fresh.idSha256]);
    expect(await store.sessions.get(idle.idSha256)).toBeNull();
    expect(await store.sessions.get(old.idSha256)).toBeNull();

    expect(await store.sessions.remove(fresh.idSha256)).toBe(true);
    expect(await store.sessions.remove(fresh.idSha256)).toBe(false);
  });

  it("keeps the node an agent token was made for", async () => {
    const token = aToken({ role: "agent" });
    expect(await store.tokens.insert({ ...token, node: "gpu-1" })).toEqual({
      ...token,
      lastUsedAt: null,
      node: "gpu-1",
      ...NO_LIMITS,
    });
  });

  it("keeps a client token's models and limits, read back as given", async () => {
    const token = aToken({ role: "client" });
    const limits = {
      models: ["chat", "llama-3.1-8b:q4"],
      requestsPerMinute: 60,
      concurrency: 2,
      tokensPerDay: 5_000_000_000,
    };

    expect(await store.tokens.insert({ ...token, ...limits })).toEqual({
      ...token,
      lastUsedAt: null,
      node: null,
      ...limits,
    });
    expect(await store.tokens.findByHash(token.sha256)).toMatchObject(limits);
    expect((await store.tokens.list()).find((t) => t.name === token.name)).toMatchObject(limits);
  });

  it("tells no list (every model) from an empty one, and refuses limits below 1", async () => {
    const every = aToken({ role: "client" });
    const none = aToken({ role: "client" });
    await store.tokens.insert({ ...every, models: null, requestsPerMinute: 10 });
    await store.tokens.insert({ ...none, models: [] });

    expect(await store.tokens.get(every.name)).toMatchObject({
      models: null,
      requestsPerMinute: 10,
      concurrency: null,
    });
    expect(await store.tokens.get(none.name)).toMatchObject({ models: [] });
    await expect(
      store.tokens.insert({ ...aToken({ role: "client" }), requestsPerMinute: 0 }),
    ).rejects.toThrow();
    await expect(store.tokens.insert({ ...aToken({ role: "client" }), concurrency: -1 })).rejects.toThrow();
    await expect(store.tokens.insert({ ...aToken({ role: "client" }), tokensPerDay: 0 })).rejects.toThrow();
  });

  it("binds a node to one token and a token to one node", async () => {
    const at = "2025-01-01T10:00:00.000Z";
    const first = { node: "box-1", token: "agent-a", tokenSha256: hash(), boundAt: at };
    expect(await store.agentNodes.bind(first)).toEqual(first);
    // The node is taken: the answer is the binding that holds it.
    expect(await store.agentNodes.bind({ ...first, token: "agent-b", tokenSha256: hash() })).toEqual(first);
    // The token is bound elsewhere: nothing to hold the new node.
    expect(await store.agentNodes.bind({ ...first, node: "box-2" })).toBeNull();
    expect(await store.agentNodes.ofNode("box-2")).toBeNull();
    expect(await store.agentNodes.ofToken(first.tokenSha256)).toEqual(first);

    await store.agentNodes.release(first.tokenSha256);
    expect(await store.agentNodes.list()).toEqual([]);
  });

  it("answers from memory, and forgets at once when this store writes", async () => {
    const token = aToken();
    expect(await store.tokens.any()).toBe(false);
    expect(await store.tokens.findByHash(token.sha256)).toBeNull();

    await store.tokens.insert(token);
    expect(await store.tokens.any()).toBe(true);
    expect(await store.tokens.findByHash(token.sha256)).toMatchObject({ name: token.name });

    await store.transaction((tx) => tx.tokens.remove(token.name));
    expect(await store.tokens.findByHash(token.sha256)).toBeNull();
    expect(await store.tokens.any()).toBe(false);
  });
});

describeOnPostgres("tokens across two stores on one PostgreSQL", () => {
  const backend = backendFor("postgres");
  const store = useStore(backend, { reset: false });

  it("another process's insert and removal reach this store's answers by NOTIFY, well before they expire", async () => {
    const other = await openFor(backend);
    try {
      const token = aToken();
      expect(await store.tokens.any()).toBe(false);
      expect(await store.tokens.findByHash(token.sha256)).toBeNull();

      await other.tokens.insert(token);
      await expect.poll(() => store.tokens.any(), { timeout: 2_000 }).toBe(true);
      await expect.poll(() => store.tokens.findByHash(token.sha256), { timeout: 2_000 }).not.toBeNull();

      await other.tokens.remove(token.name);
      await expect.poll(() => store.tokens.findByHash(token.sha256), { timeout: 2_000 }).toBeNull();
    } finally {
      await other.close();
    }
  });
});
