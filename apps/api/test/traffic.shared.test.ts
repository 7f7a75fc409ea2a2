import { trafficHistorySchema } from "@llmgw/contract";
import { makeTraffic } from "@llmgw/domain/testing";
import { describe, expect, it } from "vitest";
import { createOk, useApi } from "./harness";

// SPEC §7.7: "summed over processes where the store holds them". On a shared PostgreSQL every
// process writes its ticks, and a model's traffic is every process's, summed by second; an
// embedded store has no other process, so what this process kept is the answer.

const api = useApi();

describe("GET /api/v1/models/:name/traffic over the store", () => {
  it("sums every process's seconds on PostgreSQL, and reads only its own on PGlite", async () => {
    const model = await createOk(api);
    const now = Math.floor(Date.now() / 1000);
    const { store } = api.deps;
    const figures = { model: model.name, inFlight: 1, firstByteP50Ms: 100, tokensPerSecond: 10 };
    await store.traffic.record("process-a", now - 5, [makeTraffic({ ...figures, requestsPerSecond: 2 })], 0);
    await store.traffic.record(
      "process-b",
      now - 5,
      [makeTraffic({ ...figures, requestsPerSecond: 3, firstByteP50Ms: 250, waking: true })],
      0,
    );
    await store.traffic.record("process-b", now - 4, [makeTraffic({ ...figures, requestsPerSecond: 1 })], 0);
    // Older than the window: not the answer's, whoever wrote it.
    await store.traffic.record(
      "process-a",
      now - 700,
      [makeTraffic({ ...figures, requestsPerSecond: 9 })],
      0,
    );

    const res = await api.app.request(`/api/v1/models/${model.name}/traffic`);
    expect(res.status).toBe(200);
    const history = trafficHistorySchema.parse(await res.json());

    if (store.kind === "pglite") {
      expect(history.seconds).toEqual([]);
      return;
    }
    expect(history.seconds).toEqual([
      {
        at: now - 5,
        requestsPerSecond: 5,
        inFlight: 2,
        queued: 0,
        waitingSeconds: null,
        waking: true,
        firstByteP50Ms: 250,
        tokensPerSecond: 20,
      },
      {
        at: now - 4,
        requestsPerSecond: 1,
        inFlight: 1,
        queued: 0,
        waitingSeconds: null,
        waking: false,
        firstByteP50Ms: 100,
        tokensPerSecond: 10,
      },
    ]);
  });
});
