import { describe, expect, it } from "vitest";
import type { Leadership } from "../src/scheduler/leader";
import { startUsageRecorder } from "../src/usage/recorder";
import { REPLICA_SPAN_MAX_MS } from "../src/usage/replicaTime";
import { beatPlaced, createOk, heartbeat, modelInput, replicaReport, useApi } from "./harness";

// SPEC §12.1, replica-hours: the leader counts the hours each model's replicas were ready, with
// what they held, per model and owner, on the file's store; read back through GET /usage.

const api = useApi();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);

let clock = T0;
const at = (ms: number) => {
  clock = ms;
};

/** A recorder of this file's app, on the test's clock; its timer never fires (flush is called). */
function recorder() {
  api.deps.now = () => new Date(clock);
  return startUsageRecorder(api.deps, api.control.runtime, { take: () => [], putBack: () => {} } as never, {
    intervalMs: HOUR,
  });
}

async function fleet(readyCount: number, starting = 0) {
  const model = await createOk(
    api,
    modelInput({ owner: "team-a", need: { minMemoryGB: 16, cpuCores: 4, gpus: 1 } }),
  );
  const replicas = [
    ...Array.from({ length: readyCount }, () => replicaReport({ model: model.name })),
    ...Array.from({ length: starting }, () => replicaReport({ model: model.name, state: "starting" })),
  ];
  await beatPlaced(api, heartbeat({ node: { gpuTotal: 4 }, replicas }));
  return model.name;
}

async function byModel(from: number, to: number) {
  const res = await api.app.request(
    `/api/v1/usage?by=model&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { rows: Record<string, number | string>[]; totals: Record<string, number> };
}

const notLeading: Leadership = { check: async () => false, held: false, stop: async () => {} };

describe("replica-hours (SPEC §12.1)", () => {
  it("counts ready replicas by hour, with memory, cores and GPUs; starting ones not", async () => {
    const model = await fleet(2, 1);
    const rec = recorder();
    at(T0 + HOUR - 10_000);
    await rec.flush(); // the clock starts here: nothing before it is counted
    for (let i = 1; i <= 4; i++) {
      at(T0 + HOUR - 10_000 + i * 5_000);
      await rec.flush();
    }
    await rec.stop();
    const reading = await byModel(T0, T0 + 3 * HOUR);
    // 20 s of 2 ready replicas, 10 s each side of the hour: 2 × 10 s = 1/180 h per hour.
    expect(
      reading.rows.map((r) => [r.at, r.key, r.replicaHours, r.memoryGBHours, r.coreHours, r.gpuHours]),
    ).toEqual([
      [new Date(T0).toISOString(), model, 0.005556, 0.088889, 0.022222, 0.005556],
      [new Date(T0 + HOUR).toISOString(), model, 0.005556, 0.088889, 0.022222, 0.005556],
    ]);
    expect(reading.totals.replicaHours).toBeCloseTo(40 / 3600, 6);
    const owners = await api.app.request(
      `/api/v1/usage?by=owner&step=day&from=${new Date(T0).toISOString()}&to=${new Date(T0 + 3 * HOUR).toISOString()}`,
    );
    expect(((await owners.json()) as typeof reading).rows).toMatchObject([
      { key: "team-a", memoryGBHours: 0.177778 },
    ]);
  });

  it("only the leader counts; a long gap counts at most REPLICA_SPAN_MAX_MS", async () => {
    await fleet(1);
    const rec = recorder();
    at(T0);
    await rec.flush();
    api.control.runtime.leadership = notLeading;
    at(T0 + 60_000);
    await rec.flush();
    expect((await byModel(T0, T0 + HOUR)).rows).toEqual([]);
    api.control.runtime.leadership = null; // leads again: the clock stood at T0, a minute ago
    await rec.flush();
    await rec.stop();
    expect((await byModel(T0, T0 + HOUR)).totals.replicaHours).toBeCloseTo(REPLICA_SPAN_MAX_MS / HOUR, 6);
  });

  it("two processes that both believe they lead count one span once", async () => {
    await fleet(3);
    const [a, b] = [recorder(), recorder()];
    at(T0);
    await a.flush();
    at(T0 + 4_000);
    await Promise.all([a.flush(), b.flush()]);
    at(T0 + 8_000);
    await Promise.all([b.flush(), a.flush()]);
    await Promise.all([a.stop(), b.stop()]);
    // 3 replicas × 8 s, whatever the order the two took the clock in.
    expect((await byModel(T0, T0 + HOUR)).totals.replicaHours).toBeCloseTo((3 * 8) / 3600, 6);
  });

  it("the leader deletes replica hours older than 400 days", async () => {
    const old = T0 - 401 * 24 * HOUR;
    await api.deps.store.usage.addReplicaHours([
      { hour: old, model: "m", owner: "o", replicaHours: 1, memoryGBHours: 1, coreHours: 1, gpuHours: 0 },
      { hour: T0, model: "m", owner: "o", replicaHours: 1, memoryGBHours: 1, coreHours: 1, gpuHours: 0 },
    ]);
    const rec = recorder();
    at(T0 + HOUR);
    await rec.stop();
    const kept = await api.deps.store.usage.replicaHoursBetween(0, T0 + 2 * HOUR);
    expect(kept.map((r) => r.hour)).toEqual([T0]);
  });
});
