import { makeTraffic } from "@llmgw/domain/testing";
import { expect, it } from "vitest";
import { backendFor, useStore } from "./backends";
import { unique } from "./factories";
import { describeOnEachDatabase } from "./testStore";

// SPEC §7.7: each process's last minutes of model.traffic, kept where every process can sum them.

const AT = 1_800_000_000;

describeOnEachDatabase("the traffic seconds on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  it("keeps each process's second of a model, and answers a model's from a second on", async () => {
    const [a, b] = [unique("process"), unique("process")];
    const [chat, code] = [unique("chat"), unique("code")];
    await store.traffic.record(a, AT, [makeTraffic({ model: chat, requestsPerSecond: 2 })], 0);
    await store.traffic.record(
      b,
      AT,
      [makeTraffic({ model: chat, requestsPerSecond: 3 }), makeTraffic({ model: code })],
      0,
    );
    await store.traffic.record(
      a,
      AT + 1,
      [makeTraffic({ model: chat, requestsPerSecond: 4, inFlight: 1 })],
      0,
    );
    // The same second again (a late tick) replaces the figures it wrote.
    await store.traffic.record(
      a,
      AT + 1,
      [makeTraffic({ model: chat, requestsPerSecond: 5, inFlight: 1 })],
      0,
    );

    expect(await store.traffic.of(chat, AT)).toEqual([
      { process: a, at: AT, traffic: makeTraffic({ model: chat, requestsPerSecond: 2 }) },
      { process: b, at: AT, traffic: makeTraffic({ model: chat, requestsPerSecond: 3 }) },
      { process: a, at: AT + 1, traffic: makeTraffic({ model: chat, requestsPerSecond: 5, inFlight: 1 }) },
    ]);
    expect((await store.traffic.of(chat, AT + 1)).map((s) => s.at)).toEqual([AT + 1]);
    expect(await store.traffic.of(code, AT)).toHaveLength(1);
  });

  it("forgets every process's seconds before the window in the statement that records", async () => {
    const [gone, here] = [unique("process"), unique("process")];
    const model = unique("chat");
    await store.traffic.record(gone, AT - 700, [makeTraffic({ model })], 0);
    await store.traffic.record(here, AT, [makeTraffic({ model })], AT - 599);
    expect((await store.traffic.of(model, 0)).map((s) => s.process)).toEqual([here]);
  });

  it("lists the models other processes had traffic for from a second on, each once", async () => {
    const [a, b] = [unique("process"), unique("process")];
    const [chat, code] = [unique("chat"), unique("code")];
    await store.traffic.record(a, AT, [makeTraffic({ model: chat })], 0);
    await store.traffic.record(b, AT + 1, [makeTraffic({ model: chat }), makeTraffic({ model: code })], 0);
    await store.traffic.record(b, AT + 2, [makeTraffic({ model: chat })], 0);
    const ours = async (process: string, from: number) =>
      (await store.traffic.othersModels(process, from))
        .filter((m) => m === chat || m === code)
        .map((m) => (m === chat ? "chat" : "code"))
        .sort();
    expect(await ours(a, AT)).toEqual(["chat", "code"]);
    expect(await ours(b, AT)).toEqual(["chat"]);
    expect(await ours(b, AT + 1)).toEqual([]);
    expect(await ours(a, AT + 2)).toEqual(["chat"]);
    expect(await ours(a, AT + 3)).toEqual([]);
  });
});
