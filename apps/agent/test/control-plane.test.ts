import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeControlPlane } from "./kit";

// The stand-in control plane the agent's tests run against refuses what the server refuses, so an
// agent drifting from the wire format fails those tests rather than only a real deployment.

let control: Awaited<ReturnType<typeof fakeControlPlane>>;

beforeEach(async () => {
  control = await fakeControlPlane();
});
afterEach(() => control.close());

const send = (body: string, contentType = "application/json") =>
  fetch(`${control.url}/api/v1/agents/heartbeat`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });

const node = {
  name: "n1",
  memoryGB: 64,
  cpuCount: 8,
  gpuTotal: 0,
  gpuMemoryGB: 0,
  engines: ["llamacpp"],
  labels: {},
};

describe("the fake control plane", () => {
  it("takes a heartbeat the domain's schema takes, and records it", async () => {
    const res = await send(JSON.stringify({ node, replicas: [{ id: "r1", model: "m", state: "ready" }] }));

    expect(res.status).toBe(200);
    expect(control.beats).toHaveLength(1);
    expect(control.invalid).toEqual([]);
  });

  it("refuses a stray key at any depth with a 400 naming it, as the server does", async () => {
    const res = await send(JSON.stringify({ node: { ...node, isAdmin: true }, replicas: [] }));

    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "bad_request", fields: { "node.isAdmin": "not a field of this request" } },
    });
    expect(control.beats).toEqual([]);
    expect(control.invalid).toMatchObject([{ status: 400 }]);
  });

  it("refuses a replica in a state the server does not know, and a body that is not JSON", async () => {
    const exploded = await send(
      JSON.stringify({ node, replicas: [{ id: "r", model: "m", state: "exploded" }] }),
    );
    const text = await send("{", "application/json");
    const form = await send(JSON.stringify({ node }), "text/plain");

    expect(exploded.status).toBe(400);
    expect(await exploded.json()).toMatchObject({
      error: { fields: { "replicas.0.state": expect.any(String) } },
    });
    expect(text.status).toBe(400);
    expect(form.status).toBe(415);
    expect(control.beats).toEqual([]);
  });
});
