import { describe, expect, it, vi } from "vitest";
import { errorOf, heartbeat, modelInput, useApi } from "./harness";
import { storeDump } from "./security-kit";

// SPEC §4: no string field accepts control characters (NUL included) or lone surrogates, each a
// 400 naming the field; an agent's text is bounded. PostgreSQL refuses NUL in text and a lone
// surrogate in JSON, so each of these was a 500 once it reached the store.

const api = useApi();

const send = (method: string, path: string, body?: unknown) =>
  api.app.request(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Sends the request and expects a 400 whose `fields` name `field`; nothing may be stored. */
async function refusedNaming(field: string, method: string, path: string, body?: unknown) {
  const before = await storeDump(api.deps, api.control);
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const res = await send(method, path, body);
  log.mockRestore();
  const error = await errorOf(res, 400);
  expect(Object.keys(error.fields ?? {})).toContain(field);
  expect(await storeDump(api.deps, api.control)).toBe(before);
  return error.fields?.[field];
}

const BAD = [
  ["NUL", "a\u0000b"],
  ["a lone high surrogate", "a\ud800b"],
  ["a lone low surrogate", "a\udc00b"],
  ["ESC", "a\u001b[2Jb"],
] as const;

describe.each(BAD)("%s", (_what, bad) => {
  it.each([
    ["description", { description: bad }],
    ["owner", { owner: bad }],
    ["source", { source: `http://mirror.example/${bad}` }],
    ["class", { class: bad }],
    ["aliases.0", { aliases: [bad] }],
  ])("in a new model's %s is a 400 naming it", async (field, change) => {
    await refusedNaming(field, "POST", "/api/v1/models", { ...modelInput(), ...change });
  });

  it.each([
    ["profiles.0.args.0", { args: [bad] }],
    [`profiles.0.nodeSelector.${bad}`, { nodeSelector: { [bad]: "v" } }],
    ["profiles.0.nodeSelector.zone", { nodeSelector: { zone: bad } }],
  ])("in a profile's %s is a 400 naming it", async (field, need) => {
    await refusedNaming(field, "POST", "/api/v1/models", modelInput({ need }));
  });

  it("in a patched description or owner is a 400 naming it", async () => {
    const created = await send("POST", "/api/v1/models", modelInput());
    const { name } = (await created.json()) as { name: string };
    await refusedNaming("description", "PATCH", `/api/v1/models/${name}`, { description: bad });
    await refusedNaming("owner", "PATCH", `/api/v1/models/${name}`, { owner: bad });
  });

  it.each([
    ["node.name", heartbeat({ node: { name: bad } })],
    ["node.agentVersion", heartbeat({ node: { agentVersion: bad } })],
    ["node.engines.0", heartbeat({ node: { engines: [bad] } })],
    [`node.labels.${bad}`, heartbeat({ node: { labels: { [bad]: "v" } } })],
    ["node.labels.zone", heartbeat({ node: { labels: { zone: bad } } })],
    ["replicas.0.id", heartbeat({ replicas: [{ id: bad, model: "m", state: "ready" }] })],
    ["replicas.0.model", heartbeat({ replicas: [{ id: "r", model: bad, state: "ready" }] })],
  ])("in a heartbeat's %s is a 400 naming it", async (field, body) => {
    await refusedNaming(field, "POST", "/api/v1/agents/heartbeat", body);
  });

  it("in a token's name or a pasted token is a 400 naming it", async () => {
    await refusedNaming("name", "POST", "/api/v1/tokens", { name: bad, role: "admin" });
    await refusedNaming("token", "POST", "/api/v1/session", { token: bad });
  });
});

describe("a path segment or query holding NUL", () => {
  it.each([
    ["PUT", "/api/v1/quotas/a%00b", { memoryGB: 1, cpuCores: null, gpus: null, replicas: null }],
    ["GET", "/api/v1/models/a%00b", undefined],
    ["DELETE", "/api/v1/models/a%00b", undefined],
    ["POST", "/api/v1/fleet/nodes/a%00b/drain", undefined],
    ["DELETE", "/api/v1/fleet/nodes/a%00b", undefined],
    ["DELETE", "/api/v1/tokens/a%00b", undefined],
    ["GET", "/api/v1/mirror/a%00b/v/plan", undefined],
  ])("%s %s is a 400 naming the path", async (method, path, body) => {
    expect(await refusedNaming("path", method, path, body)).toBe("must not contain control characters");
  });

  it("in the audit's model filter is a 400 naming it", async () => {
    await refusedNaming("model", "GET", "/api/v1/audit?model=a%00b");
  });
});

describe("an agent's text, bounded (SPEC §4)", () => {
  it("a heartbeat of 10,000 replicas is a 400 naming the limit", async () => {
    const replicas = Array.from({ length: 10_000 }, (_, i) => ({
      id: `r${i}`,
      model: "m",
      state: "ready" as const,
    }));
    expect(await refusedNaming("replicas", "POST", "/api/v1/agents/heartbeat", heartbeat({ replicas }))).toBe(
      "at most 256 replicas per heartbeat",
    );
  });

  it("50,000 labels are a 400 naming the limit, not 50,000 refusals", async () => {
    const labels = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, ""]));
    const before = await storeDump(api.deps, api.control);
    const res = await send("POST", "/api/v1/agents/heartbeat", heartbeat({ node: { labels } }));
    const error = await errorOf(res, 400);
    expect(error.fields).toEqual({ "node.labels": "at most 64 labels" });
    expect(await storeDump(api.deps, api.control)).toBe(before);
  });

  it("a label key of 64 characters or a value of 256 is a 400 naming it", async () => {
    const key = "k".repeat(64);
    const path = "/api/v1/agents/heartbeat";
    await refusedNaming(`node.labels.${key}`, "POST", path, heartbeat({ node: { labels: { [key]: "v" } } }));
    await refusedNaming(
      "node.labels.k",
      "POST",
      path,
      heartbeat({ node: { labels: { k: "v".repeat(256) } } }),
    );
  });

  it.each(["a node", "node/1", "n".repeat(65)])(
    "the node name %j breaks the model-name rule: 400",
    async (name) => {
      await refusedNaming("node.name", "POST", "/api/v1/agents/heartbeat", heartbeat({ node: { name } }));
    },
  );

  it.each(["/srv/models/x.gguf", "-oProxyCommand=x", "file:///etc/passwd"])(
    "a model's source %j, not an http(s) URL, is a 400 naming it",
    async (source) => {
      await refusedNaming("source", "POST", "/api/v1/models", { ...modelInput(), source });
    },
  );
});

describe("what stays accepted", () => {
  it("a description of several lines, and names in any script", async () => {
    const input = { ...modelInput(), description: "line one\n\tline two", owner: "équipe-東京 😀" };
    const res = await send("POST", "/api/v1/models", input);
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ description: input.description, owner: input.owner });
  });

  it("a heartbeat at every bound", async () => {
    const labels = Object.fromEntries(
      Array.from({ length: 64 }, (_, i) => [`${"k".repeat(60)}${i}`.slice(-63), "v".repeat(255)]),
    );
    const replicas = Array.from({ length: 256 }, (_, i) => ({
      id: `r${i}`,
      model: "m",
      state: "ready" as const,
    }));
    const res = await send("POST", "/api/v1/agents/heartbeat", heartbeat({ node: { labels }, replicas }));
    expect(res.status).toBe(200);
  });
});

describe("keys named like Object's built-ins", () => {
  it("are labels like any other: kept as sent, and matched only when the node has them", async () => {
    const labels = { constructor: "x", toString: "y", hasOwnProperty: "z" };
    const labelled = heartbeat({ node: { labels } });
    const bare = heartbeat();
    expect((await send("POST", "/api/v1/agents/heartbeat", labelled)).status).toBe(200);
    expect((await send("POST", "/api/v1/agents/heartbeat", bare)).status).toBe(200);
    const input = modelInput({ need: { nodeSelector: { constructor: "x" } } });
    expect((await send("POST", "/api/v1/models", input)).status).toBe(201);

    const nodes = (await (await send("GET", "/api/v1/fleet/nodes")).json()) as {
      name: string;
      labels: object;
    }[];
    const room = (await (await send("GET", `/api/v1/models/${input.name}/headroom`)).json()) as {
      nodes: { node: string; reason: string | null }[];
    };

    expect(nodes.find((n) => n.name === labelled.node.name)?.labels).toEqual(labels);
    expect(room.nodes.find((n) => n.node === labelled.node.name)?.reason).toBeNull();
    expect(room.nodes.find((n) => n.node === bare.node.name)?.reason).toBe(
      "does not match nodeSelector constructor=x",
    );
  });

  it("refuse __proto__ as a label or selector key, naming it", async () => {
    const proto = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    await refusedNaming(
      "node.labels.__proto__",
      "POST",
      "/api/v1/agents/heartbeat",
      heartbeat({ node: { labels: proto } }),
    );
    await refusedNaming(
      "profiles.0.nodeSelector.__proto__",
      "POST",
      "/api/v1/models",
      modelInput({ need: { nodeSelector: proto } }),
    );
  });
});
