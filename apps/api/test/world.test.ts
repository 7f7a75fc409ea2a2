import { gunzipSync } from "node:zlib";
import { scheduleWrites } from "@llmgw/domain";
import { describe, expect, it, vi } from "vitest";
import { runOnce } from "../src/scheduler";
import { markSilentNodesDown } from "../src/services/liveness";
import { beatOk, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// The world's snapshot: a heartbeat patches it instead of reading the store again, and what the
// API then answers is exactly what a fresh read would answer. Bodies read by many clients are
// serialised once per snapshot and carry an ETag.

const api = useApi();

/** What a client can see of the picture, through the API. */
async function everything() {
  const get = async (path: string) => (await api.app.request(`/api/v1${path}`)).json();
  return {
    models: await get("/models"),
    headroom: await get("/headroom"),
    nodes: await get("/fleet/nodes"),
    replicas: await get("/fleet/replicas"),
    capacity: await get("/capacity"),
  };
}

/** A small deterministic generator: the same walk every run. */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

describe("the snapshot after heartbeats", () => {
  it("is patched, not reloaded, and equals a fresh read of the store after every beat", async () => {
    const models = [];
    for (const [i, cls] of ["critical", "standard", "batch"].entries()) {
      const res = await api.client.models.$post({
        json: modelInput({ class: cls, need: { minMemoryGB: 4 + 4 * i, cpuCores: 1 + i } }),
      });
      models.push(await res.json());
    }
    const nodes = ["n-a", "n-b", "n-c", "n-d"];
    const running = new Map<string, ReturnType<typeof replicaReport>[]>(nodes.map((n) => [n, []]));
    const pick = random(7);
    await everything();
    const loadsBefore = api.deps.world.loads;
    let changes = 0;
    for (let step = 0; step < 60; step++) {
      const node = nodes[pick(nodes.length)] as string;
      const replicas = running.get(node) ?? [];
      const move = pick(4);
      if (move === 0) replicas.push(replicaReport({ model: models[pick(models.length)]?.name ?? "" }));
      else if (move === 1 && replicas.length > 0) replicas.splice(pick(replicas.length), 1);
      else if (move === 2 && replicas.length > 0) {
        const at = pick(replicas.length);
        const r = replicas[at];
        if (r) replicas[at] = { ...r, state: r.state === "ready" ? "starting" : "ready" };
      }
      const res = await api.client.agents.heartbeat.$post({
        json: heartbeat({
          node: { name: node, memoryGB: 64, cpuCount: 16, freeMemoryGB: 10 + pick(40) },
          replicas: [...replicas],
        }),
      });
      expect(res.status).toBe(200);
      changes++;
      const patched = await everything();
      api.deps.world.invalidate();
      const fresh = await everything();
      expect(patched).toEqual(fresh);
    }
    // Each step above read a fresh snapshot once on purpose; the beats themselves read none.
    expect(api.deps.world.loads - loadsBefore).toBe(changes);
  });
});

describe("heartbeats that arrive together", () => {
  it("commit together, each as it would alone: announced node by node, one refused alone, the picture a fresh read's", async () => {
    const created = await api.client.models.$post({
      json: modelInput({ need: { minMemoryGB: 2, cpuCores: 1 } }),
    });
    const model = (await created.json()).name;
    const held = replicaReport({ model });
    const holder = heartbeat({ node: { name: "holder", memoryGB: 64, cpuCount: 16 }, replicas: [held] });
    expect((await api.client.agents.heartbeat.$post({ json: holder })).status).toBe(200);
    await everything();
    const loadsBefore = api.deps.world.loads;
    const send = (beats: ReturnType<typeof heartbeat>[]) =>
      Promise.all(beats.map(async (json) => (await api.client.agents.heartbeat.$post({ json })).status));
    const burst = (name: string, count: number) =>
      Array.from({ length: count }, (_, i) =>
        heartbeat({
          node: { name: `${name}-${i}`, memoryGB: 64, cpuCount: 16, freeMemoryGB: 20 + i },
          replicas: [replicaReport({ model }), replicaReport({ model, state: "starting" })],
        }),
      );

    const latest = await api.deps.store.events.latestId();
    const transactions = vi.spyOn(api.deps.store, "transaction");
    const first = burst("together", 30);
    expect(await send(first)).toEqual(first.map(() => 200));
    // Fewer commits than beats: the beats that waited for one committed as one.
    expect(transactions.mock.calls.length).toBeLessThan(first.length);
    transactions.mockRestore();
    const events = await api.deps.store.events.since(latest);
    // Each beat's events together: its node.changed, then its two replicas.
    expect(events.map((e) => e.type)).toEqual(
      first.flatMap(() => ["node.changed", "replica.changed", "replica.changed"]),
    );
    events.forEach((e, i) => {
      const announced = events[i - (i % 3)];
      const node = announced?.type === "node.changed" ? announced.data.name : null;
      if (e.type === "replica.changed") expect(e.data.node).toBe(node);
    });
    expect(new Set(events.flatMap((e) => (e.type === "node.changed" ? [e.data.name] : [])))).toEqual(
      new Set(first.map((b) => b.node.name)),
    );

    // One beat claims the holder's replica: it alone is refused, and writes nothing.
    const second = burst("again", 12);
    second[5] = heartbeat({ node: { name: "claimant", memoryGB: 64, cpuCount: 16 }, replicas: [held] });
    expect(await send(second)).toEqual(second.map((_, i) => (i === 5 ? 409 : 200)));
    const patched = await everything();
    expect(api.deps.world.loads).toBe(loadsBefore);
    expect(patched.nodes).not.toContainEqual(expect.objectContaining({ name: "claimant" }));
    api.deps.world.invalidate();
    expect(patched).toEqual(await everything());
  });
});

describe("the snapshot after silent nodes are marked down", () => {
  it("is patched, not reloaded, and equals a fresh read", async () => {
    const created = await api.client.models.$post({
      json: modelInput({ need: { minMemoryGB: 2, cpuCores: 1 } }),
    });
    const model = (await created.json()).name;
    for (const name of ["quiet-a", "quiet-b"]) {
      const body = heartbeat({
        node: { name, memoryGB: 64, cpuCount: 16 },
        replicas: [replicaReport({ model }), replicaReport({ model, state: "starting" })],
      });
      expect((await api.client.agents.heartbeat.$post({ json: body })).status).toBe(200);
    }
    const before = await everything();
    const loads = api.deps.world.loads;
    const silence = 3 * api.config.heartbeatSeconds * 1000 + 1000;
    api.deps.now = () => new Date(Date.now() + silence);
    expect((await markSilentNodesDown(api.deps)).sort()).toEqual(["quiet-a", "quiet-b"]);
    const patched = await everything();
    expect(api.deps.world.loads).toBe(loads);
    expect(patched).not.toEqual(before);
    api.deps.world.invalidate();
    expect(patched).toEqual(await everything());
  });
});

describe("the snapshot after scheduler runs", () => {
  it("is patched, not reloaded, and equals a fresh read after every run: placements, stops, pending", async () => {
    const pick = random(5);
    const nodes = ["s-a", "s-b", "s-c"].map((name, i) =>
      heartbeat({ node: { name, memoryGB: 32 + 16 * i, cpuCount: 8 } }),
    );
    for (const node of nodes) await beatOk(api, node);
    const models: string[] = [];
    let reads = 0;
    let runs = 0;
    for (let step = 0; step < 24; step++) {
      const move = pick(4);
      if (models.length < 2 || move === 0) {
        const res = await api.client.models.$post({
          json: modelInput({
            class: ["critical", "standard", "batch"][pick(3)],
            // Some fit nowhere (pending), some only by preempting.
            need: { minMemoryGB: 4 + 12 * pick(5), cpuCores: 1 + pick(4) },
            scaling: { min: 1 + pick(3), max: 4 },
          }),
        });
        expect(res.status).toBe(201);
        models.push((await res.json()).name);
      } else if (move === 1) {
        const name = models[pick(models.length)] ?? "";
        const res = await api.app.request(`/api/v1/models/${name}/target`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ replicas: pick(4) }),
        });
        expect([200, 409]).toContain(res.status);
      } else {
        // An agent starts what it was given (reported ready), or a node's memory moves.
        const node = nodes[pick(nodes.length)];
        if (!node) continue;
        const reply = await beatOk(api, node);
        await beatOk(api, {
          ...node,
          replicas: reply.replicas.map((r) => replicaReport({ id: r.id, model: r.model })),
        });
      }
      await everything();
      const loadsBefore = api.deps.world.loads;
      const plan = await runOnce(api.deps, api.control);
      if (plan && scheduleWrites(plan).length > 0) runs++;
      const patched = await everything();
      expect(api.deps.world.loads).toBe(loadsBefore);
      api.deps.world.invalidate();
      const fresh = await everything();
      reads++;
      expect(patched).toEqual(fresh);
    }
    expect(runs).toBeGreaterThan(3);
    expect(reads).toBe(24);
  });
});

describe("the snapshot after creates and edits", () => {
  it("is patched, not reloaded, and equals a fresh read after every create, edit and removal", async () => {
    await api.client.agents.heartbeat.$post({
      json: heartbeat({ node: { name: "n-1", memoryGB: 64, cpuCount: 16 } }),
    });
    await api.client.agents.heartbeat.$post({
      json: heartbeat({ node: { name: "n-2", memoryGB: 32, cpuCount: 8 } }),
    });
    await everything();
    const loadsBefore = api.deps.world.loads;
    const pick = random(11);
    const names: string[] = [];
    let reads = 0;
    let removals = 0;
    for (let step = 0; step < 30; step++) {
      const current = names[pick(Math.max(names.length, 1))];
      if (current !== undefined && step >= 3 && pick(5) === 0) {
        const res = await api.app.request(`/api/v1/models/${current}`, { method: "DELETE" });
        expect(res.status).toBe(204);
        names.splice(names.indexOf(current), 1);
        removals++;
      } else if (step < 3 || current === undefined || pick(3) === 0) {
        const res = await api.client.models.$post({
          json: modelInput({
            class: ["critical", "standard", "batch"][pick(3)],
            need: { minMemoryGB: 2 + pick(20), cpuCores: 1 + pick(4) },
          }),
        });
        expect(res.status).toBe(201);
        names.push((await res.json()).name);
      } else {
        const model = await (await api.app.request(`/api/v1/models/${current}`)).json();
        const res = await api.app.request(`/api/v1/models/${current}`, {
          method: "PATCH",
          headers: { "content-type": "application/merge-patch+json", "if-match": `"${model.version}"` },
          body: JSON.stringify({ class: ["critical", "standard", "batch"][pick(3)], memoryGB: 2 + pick(30) }),
        });
        expect(res.status).toBe(200);
      }
      const patched = await everything();
      api.deps.world.invalidate();
      const fresh = await everything();
      reads++;
      expect(patched).toEqual(fresh);
    }
    expect(api.deps.world.loads - loadsBefore).toBe(reads);
    expect(removals).toBeGreaterThan(0);
  });
});

describe("bodies shared by every reader", () => {
  it("GET /models: one ETag per picture, 304 for a current copy, gzip when accepted, new bytes after a change", async () => {
    const model = await (await api.client.models.$post({ json: modelInput() })).json();
    // Bodies under 1 kB are not worth compressing: three models make more.
    for (let i = 0; i < 2; i++) await api.client.models.$post({ json: modelInput() });
    const first = await api.app.request("/api/v1/models");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const json = await first.text();
    expect(JSON.parse(json)).toHaveLength(3);

    const again = await api.app.request("/api/v1/models", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");

    const zipped = await api.app.request("/api/v1/models", { headers: { "accept-encoding": "gzip, br" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString()).toBe(json);

    const patch = await api.app.request(`/api/v1/models/${model.name}`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json", "if-match": `"${model.version}"` },
      body: JSON.stringify({ description: "changed" }),
    });
    expect(patch.status).toBe(200);
    const after = await api.app.request("/api/v1/models", { headers: { "if-none-match": etag ?? "" } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    const changed = (await after.json()).find((m: { name: string }) => m.name === model.name);
    expect(changed.description).toBe("changed");
  });

  it("GET /headroom has its ETag too", async () => {
    await api.client.models.$post({ json: modelInput() });
    const first = await api.app.request("/api/v1/headroom");
    const etag = first.headers.get("etag") ?? "";
    expect(await first.json()).toHaveLength(1);
    expect((await api.app.request("/api/v1/headroom", { headers: { "if-none-match": etag } })).status).toBe(
      304,
    );
  });
});
