import { describeOnPostgres } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { send, useTwoServers, waitFor } from "./multi-kit";
import { SECRETS, tokensYaml } from "./security-kit";

// SPEC §12.1, replica-hours across processes: two real `llmgw serve` on one PostgreSQL, one ready
// replica. Only the scheduler's leader counts replica time, under the store's replica clock, so
// what is stored is the replica's time once, not once a process.

const HOUR_S = 3_600;
const WATCH_MS = 8_000;

describeOnPostgres("replica-hours on two processes (SPEC §12.1)", () => {
  const { servers } = useTwoServers({ yaml: tokensYaml() });

  it("counts a ready replica's time once, whichever process reads it", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const node = heartbeat();
    expect((await send(a.url, SECRETS.agent, "POST", "/api/v1/agents/heartbeat", node)).status).toBe(200);
    const model = modelInput({ owner: "team-r", scaling: { min: 1, max: 1, idleTimeoutSeconds: 900 } });
    expect((await send(a.url, SECRETS.admin, "POST", "/api/v1/models", model)).status).toBe(201);
    const placed = await waitFor("the leader to place the model", 20_000, async () => {
      const res = await send(a.url, SECRETS.admin, "GET", "/api/v1/fleet/replicas");
      const replicas = (await res.json()) as { id: string; model: string; node: string | null }[];
      return replicas.find((r) => r.model === model.name && r.node !== null);
    });
    const ready = { id: placed.id, model: model.name, state: "ready", endpoint: "http://127.0.0.1:9" };
    const readyAt = Date.now();
    const beat = await send(a.url, SECRETS.agent, "POST", "/api/v1/agents/heartbeat", {
      ...node,
      replicas: [ready],
    });
    expect(beat.status).toBe(200);
    for (const server of [a, b])
      await waitFor("the replica ready everywhere", 10_000, async () => {
        const res = await send(server.url, SECRETS.admin, "GET", "/api/v1/fleet/replicas");
        const replicas = (await res.json()) as { id: string; state: string }[];
        return replicas.find((r) => r.id === placed.id && r.state === "ready");
      });

    const from = new Date(readyAt - 2 * HOUR_S * 1_000).toISOString();
    /** The model's replica-hours as `server` reads them, in seconds. */
    const counted = async (url: string) => {
      const res = await send(url, SECRETS.admin, "GET", `/api/v1/usage?by=owner&step=day&from=${from}`);
      const { rows } = (await res.json()) as { rows: { key: string; replicaHours?: number }[] };
      return rows.filter((r) => r.key === "team-r").reduce((s, r) => s + (r.replicaHours ?? 0), 0) * HOUR_S;
    };
    await new Promise((r) => setTimeout(r, WATCH_MS));
    const [atA, atB] = [await counted(a.url), await counted(b.url)];
    const elapsedS = (Date.now() - readyAt) / 1_000;
    console.log(
      `replica time on two processes: ${atA.toFixed(1)} s counted (read at A), ${atB.toFixed(1)} s (at B), ` +
        `${elapsedS.toFixed(1)} s since the replica was reported ready`,
    );
    // Both read the same store.
    expect(Math.abs(atA - atB)).toBeLessThan(2);
    // Counted once: never more than the time it has been ready (two counters would double it),
    // but for the span it turned ready in, counted as it stood at the span's end (a second; two
    // on a loaded machine)...
    expect(atA).toBeLessThanOrEqual(elapsedS + 2);
    // ...and counted all along, but for the last second or two not yet written.
    expect(atA).toBeGreaterThanOrEqual(elapsedS - 4);
  }, 120_000);
});
