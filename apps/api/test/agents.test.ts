import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { HEARTBEATS_PER_10S } from "../src/auth";
import type { Role } from "../src/config";
import { runOnce } from "../src/scheduler";
import { markSilentNodesDown } from "../src/services/liveness";
import { errorOf, heartbeat, modelInput, placeReported, replicaReport, useApi } from "./harness";
import { bearer, requestAs, SECRETS, storeDump, tokensYaml } from "./security-kit";

// SPEC §4 "Agents are trusted with their own node and nothing more", tried as an attacker holding
// one agent token would: each case here was a way to read or hijack another node's work.

const api = useApi({ yaml: tokensYaml() });
let sequence = 0;
const fresh = (prefix: string) => `${prefix}-${++sequence}`;

const request = (secret: string, method: string, path: string, body?: unknown) =>
  requestAs(api.app, secret, method, path, body);

const as = (role: Role) => SECRETS[role];
const beatAs = (secret: string, body: ReturnType<typeof heartbeat>) =>
  request(secret, "POST", "/api/v1/agents/heartbeat", body);

async function agentToken(node?: string): Promise<{ name: string; token: string; node: string | null }> {
  const res = await request(as("admin"), "POST", "/api/v1/tokens", {
    name: fresh("agent"),
    role: "agent",
    ...(node === undefined ? {} : { node }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function tokenList() {
  const res = await request(as("admin"), "GET", "/api/v1/tokens");
  return (await res.json()) as { name: string; node: string | null }[];
}

async function create(input = modelInput()) {
  const res = await request(as("operator"), "POST", "/api/v1/models", input);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { name: string; source: string };
}

async function modelView(name: string) {
  const res = await request(as("viewer"), "GET", `/api/v1/models/${name}`);
  return (await res.json()) as { replicas: { state: string }[]; headroom: { current: number } };
}

const nodeNames = async () => (await api.deps.store.nodes.list()).map((n) => n.name);

describe("an agent token is bound to one node", () => {
  it("binds on the first accepted beat, shows it in the token list, and refuses another node with 403", async () => {
    const agent = await agentToken();
    const mine = heartbeat();
    expect((await beatAs(agent.token, mine)).status).toBe(200);
    expect((await tokenList()).find((t) => t.name === agent.name)?.node).toBe(mine.node.name);

    const before = await storeDump(api.deps, api.control);
    const other = await beatAs(agent.token, heartbeat());

    const error = await errorOf(other, 403);
    expect(error.message).toContain(mine.node.name);
    expect(await storeDump(api.deps, api.control), "a refused beat wrote something").toBe(before);
    expect((await beatAs(agent.token, mine)).status).toBe(200);
  });

  it("a token made for a node reports that node only, before its first beat too", async () => {
    const agent = await agentToken("rack-7");
    expect((await tokenList()).find((t) => t.name === agent.name)?.node).toBe("rack-7");

    expect((await errorOf(await beatAs(agent.token, heartbeat()), 403)).code).toBe("forbidden");
    expect(await nodeNames()).toEqual([]);
    expect((await beatAs(agent.token, heartbeat({ node: { name: "rack-7" } }))).status).toBe(200);
  });

  it("refuses a node bound to another live token, and the refused beat binds nothing", async () => {
    const first = await agentToken();
    const second = await agentToken();
    const taken = heartbeat();
    expect((await beatAs(first.token, taken)).status).toBe(200);

    expect((await errorOf(await beatAs(second.token, taken), 403)).message).toContain(first.name);
    expect(
      (
        await errorOf(
          await request(as("admin"), "POST", "/api/v1/tokens", {
            name: fresh("agent"),
            role: "agent",
            node: taken.node.name,
          }),
          409,
        )
      ).fields,
    ).toEqual({ node: "bound to another agent token" });
    // Still free to bind its own node: the refusal bound nothing.
    expect((await beatAs(second.token, heartbeat())).status).toBe(200);
  });

  it("revoking a token frees its node for the agent token that replaces it", async () => {
    const old = await agentToken();
    const body = heartbeat();
    expect((await beatAs(old.token, body)).status).toBe(200);
    expect((await request(as("admin"), "DELETE", `/api/v1/tokens/${old.name}`)).status).toBe(204);

    const replacement = await agentToken(body.node.name);

    expect((await beatAs(replacement.token, body)).status).toBe(200);
  });

  it("gives a node only to an agent token", async () => {
    const res = await request(as("admin"), "POST", "/api/v1/tokens", {
      name: fresh("viewer"),
      role: "viewer",
      node: "rack-1",
    });
    expect((await errorOf(res, 400)).fields).toEqual({ node: "only an agent token is bound to a node" });
  });

  it("limits heartbeats per token: 429 with Retry-After past the limit", async () => {
    const app = createApp(api.deps, api.control);
    const body = heartbeat();
    const send = () =>
      app.request("/api/v1/agents/heartbeat", {
        method: "POST",
        headers: { ...bearer(as("agent")), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (let i = 0; i < HEARTBEATS_PER_10S; i++) expect((await send()).status).toBe(200);

    const refused = await send();

    expect((await errorOf(refused, 429)).code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("an agent reports its own node's replicas only", () => {
  it("is a 409 replica_conflict for an id another node holds, and nothing moves", async () => {
    const model = await create(modelInput());
    const owner = await agentToken();
    const thief = await agentToken();
    const replica = replicaReport({ model: model.name });
    const home = heartbeat({ replicas: [replica] });
    await placeReported(api, home);
    expect((await beatAs(owner.token, home)).status).toBe(200);
    const before = await storeDump(api.deps, api.control);

    const res = await beatAs(thief.token, heartbeat({ replicas: [replica] }));

    const error = await errorOf(res, 409);
    expect(error.code).toBe("replica_conflict");
    expect(error.fields).toEqual({ "replicas.0.id": "held by another node" });
    expect(await storeDump(api.deps, api.control)).toBe(before);
    expect((await api.deps.store.replicas.list()).map((r) => [r.id, r.node])).toEqual([
      [replica.id, home.node.name],
    ]);
  });

  it("is a 409 for the id of a replica the scheduler has not placed yet", async () => {
    const model = await create(modelInput({ need: { minMemoryGB: 4096 } }));
    await runOnce(api.deps, api.control);
    const [pending] = await api.deps.store.replicas.list();
    expect(pending).toMatchObject({ node: null, state: "pending" });

    const res = await beatAs(
      as("agent"),
      heartbeat({ replicas: [replicaReport({ id: pending?.id, model: model.name })] }),
    );

    expect((await errorOf(res, 409)).code).toBe("replica_conflict");
  });

  it("a replica of a catalogue model the scheduler did not place is unmanaged: not the model's, not desired, no source", async () => {
    const model = await create(modelInput({ scaling: { min: 0, max: 1 } }));
    const own = replicaReport({ model: model.name, memoryGB: 6, cpuCores: 2 });
    const body = heartbeat({ replicas: [own] });

    const reply = await (await beatAs(as("agent"), body)).json();

    expect(reply.replicas).toEqual([]);
    expect(JSON.stringify(reply)).not.toContain(model.source);
    const view = await modelView(model.name);
    expect(view.replicas).toEqual([]);
    expect(view.headroom.current).toBe(0);
    const [stored] = await api.deps.store.replicas.list();
    expect(stored).toMatchObject({ id: own.id, unmanaged: true, memoryGB: 6, cpuCores: 2 });
    const capacity = (await (await request(as("viewer"), "GET", "/api/v1/capacity")).json()) as {
      byClass: unknown[];
    };
    expect(capacity.byClass).toContainEqual(
      expect.objectContaining({ class: "unmanaged", memoryGB: 6, replicas: 1 }),
    );
  });

  it("a ready replica reported before its model exists never stands in for the model's own", async () => {
    const name = fresh("future");
    const body = heartbeat({ replicas: [replicaReport({ model: name })] });
    expect((await beatAs(as("agent"), body)).status).toBe(200);

    const model = await create(modelInput({ name }));
    const plan = await runOnce(api.deps, api.control);

    expect(plan?.place.map((r) => r.model)).toEqual([model.name]);
    const view = await modelView(name);
    expect(view.replicas.map((r) => r.state)).toEqual(["starting"]);
  });

  it("with the scheduler off, a reported replica of a catalogue model is the model's, where reported", async () => {
    const model = await create(modelInput());
    api.deps.config.scheduler = false;
    try {
      const body = heartbeat({ replicas: [replicaReport({ model: model.name })] });
      const reply = await (await beatAs(as("agent"), body)).json();

      expect(reply.replicas.map((r: { model: string }) => r.model)).toEqual([model.name]);
      const view = await modelView(model.name);
      expect(view.headroom.current).toBe(1);
    } finally {
      api.deps.config.scheduler = true;
    }
  });
});

describe("DELETE /fleet/nodes/:name", () => {
  it("forgets a down node and its replicas: audited and announced", async () => {
    const body = heartbeat({ replicas: [replicaReport({ model: "hand-started" })] });
    expect((await beatAs(as("agent"), body)).status).toBe(200);
    api.deps.now = () => new Date(Date.now() + 60_000);
    await markSilentNodesDown(api.deps);
    const latest = await api.deps.store.events.latestId();

    const res = await request(as("operator"), "DELETE", `/api/v1/fleet/nodes/${body.node.name}`);

    expect(res.status).toBe(204);
    expect(await nodeNames()).toEqual([]);
    expect(await api.deps.store.replicas.list()).toEqual([]);
    const events = await api.deps.store.events.since(latest);
    expect(events.map((e) => e.type)).toEqual(["replica.changed", "node.removed"]);
    const [entry] = await api.deps.store.audit.list({});
    expect(entry).toMatchObject({ action: "node.delete", target: body.node.name, by: "cfg-operator" });
    const nodes = await (await request(as("viewer"), "GET", "/api/v1/fleet/nodes")).json();
    expect(nodes).toEqual([]);
  });

  it("is a 409 for a live node and a 404 for an unknown one, changing nothing", async () => {
    const body = heartbeat();
    expect((await beatAs(as("agent"), body)).status).toBe(200);
    const before = await storeDump(api.deps, api.control);

    const live = await request(as("operator"), "DELETE", `/api/v1/fleet/nodes/${body.node.name}`);
    const unknown = await request(as("operator"), "DELETE", "/api/v1/fleet/nodes/no-such-node");

    expect((await errorOf(live, 409)).message).toContain("only a down node");
    expect((await errorOf(unknown, 404)).code).toBe("not_found");
    expect(await storeDump(api.deps, api.control)).toBe(before);
  });
});
