import { StandInEngine } from "@llmgw/simulation";
import { openPostgres } from "@llmgw/store";
import { describeOnPostgres } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { useTwoServers, waitFor } from "./multi-kit";

// SPEC §7.2–7.3 across processes on one PostgreSQL: a request through any process wakes the model
// (the leader places it), is sent once its replica turns ready, and refreshes the shared wake, so
// idle counts from the end of the last request in any process.

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describeOnPostgres("the request path on two processes", () => {
  const { servers, database } = useTwoServers();

  it("wakes through one process, is placed by the leader, and idle counts from the last request", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const engine = await StandInEngine.start();
    try {
      const node = heartbeat();
      expect((await post(a.url, "/api/v1/agents/heartbeat", node)).status).toBe(200);
      const model = modelInput({ scaling: { min: 0, max: 1, idleTimeoutSeconds: 900 } });
      expect((await post(a.url, "/api/v1/models", model)).status).toBe(201);
      const chat = { model: model.name, messages: [{ role: "user", content: "hi" }] };

      const waiting = post(b.url, "/v1/chat/completions", chat);
      const placed = await waitFor(
        "the leader to place the woken model",
        20_000,
        async () => {
          const replicas = (await (await fetch(`${a.url}/api/v1/fleet/replicas`)).json()) as {
            id: string;
            model: string;
            node: string | null;
          }[];
          return replicas.find((r) => r.model === model.name && r.node !== null);
        },
        50,
      );
      const ready = { id: placed.id, model: model.name, state: "ready", endpoint: engine.url };
      expect((await post(a.url, "/api/v1/agents/heartbeat", { ...node, replicas: [ready] })).status).toBe(
        200,
      );
      expect((await waiting).status).toBe(200);

      engine.knobs.delayMs = 400;
      const sent = Date.now();
      expect((await post(b.url, "/v1/chat/completions", chat)).status).toBe(200);

      const db = await openPostgres(database.url());
      try {
        await waitFor(
          "the wake refreshed at the request's end",
          10_000,
          async () => {
            const [row] = await db.query<{ woken_at: Date | string }>(
              "select woken_at from wakes where model = $1",
              [model.name],
            );
            return row && new Date(row.woken_at).getTime() >= sent + 400 ? row : null;
          },
          50,
        );
      } finally {
        await db.close();
      }
      expect(engine.received).toHaveLength(2);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
