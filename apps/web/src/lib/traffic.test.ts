import type { ModelTraffic } from "@llmgw/domain";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveStream } from "./live";
import { followTraffic, TRAFFIC_STALE_MS, TRAFFIC_WINDOW_SECONDS, TrafficStore } from "./traffic";

let counter = 0;
function trafficOf(overrides: Partial<ModelTraffic> = {}): ModelTraffic {
  counter += 1;
  return {
    model: `m-${counter}`,
    requestsPerSecond: 1,
    inFlight: 1,
    queued: 0,
    waitingSeconds: null,
    waking: false,
    firstByteP50Ms: 120,
    tokensPerSecond: 30,
    ...overrides,
  };
}

/** The store on the test's fake clock, fed through a stream as the page's is. */
function setUp() {
  // Half past a second: one event per second lands one per second of the store's.
  vi.setSystemTime(1_700_000_000_500);
  const store = new TrafficStore();
  const live = new LiveStream("/events");
  const off = followTraffic(store, live);
  const second = () => vi.advanceTimersByTime(1000);
  return { store, live, off, second };
}

const tail = (values: readonly number[] | undefined, n: number) => values?.slice(-n);

describe("TrafficStore", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("keeps the last five minutes per second, the newest last", () => {
    const { store, live, off, second } = setUp();
    const event = trafficOf({ requestsPerSecond: 4 });
    live.dispatch("model.traffic", event);
    const first = store.get(event.model);
    expect(first?.perSecond).toHaveLength(TRAFFIC_WINDOW_SECONDS);
    expect(tail(first?.perSecond, 2)).toEqual([0, 4]);
    expect(first?.current).toEqual(event);
    for (let n = 1; n <= TRAFFIC_WINDOW_SECONDS + 10; n++) {
      second();
      live.dispatch("model.traffic", { ...event, requestsPerSecond: n });
    }
    const later = store.get(event.model);
    expect(later?.perSecond).toHaveLength(TRAFFIC_WINDOW_SECONDS);
    expect(later?.perSecond[0]).toBe(11);
    expect(tail(later?.perSecond, 1)).toEqual([TRAFFIC_WINDOW_SECONDS + 10]);
    expect(later?.from).toBe(Math.floor(Date.now() / 1000) - TRAFFIC_WINDOW_SECONDS + 1);
    off();
  });

  it("counts a second without an event as 0 req/s, and keeps the chart moving after traffic stops", () => {
    const { store, live, off, second } = setUp();
    const event = trafficOf({ requestsPerSecond: 5 });
    live.dispatch("model.traffic", event);
    second();
    second();
    second();
    live.dispatch("model.traffic", { ...event, requestsPerSecond: 2 });
    expect(tail(store.get(event.model)?.perSecond, 4)).toEqual([5, 0, 0, 2]);

    second();
    second();
    const quiet = store.get(event.model);
    expect(quiet?.perSecond.at(-2)).toBe(2);
    expect(quiet?.perSecond.at(-1)).toBe(0);
    off();
  });

  it("ends the latest numbers once the model has been quiet, and forgets it after the window", () => {
    const { store, live, off } = setUp();
    const event = trafficOf({ inFlight: 3 });
    live.dispatch("model.traffic", event);
    vi.advanceTimersByTime(TRAFFIC_STALE_MS + 1000);
    expect(store.get(event.model)?.current).toBeNull();
    expect(store.get(event.model)?.perSecond).toContain(1);
    vi.advanceTimersByTime(TRAFFIC_WINDOW_SECONDS * 1000);
    expect(store.get(event.model)).toBeNull();
    off();
  });

  it("reads two events in one second after a second with none as one late tick, not a burst and a gap", () => {
    const { store, live, off, second } = setUp();
    const event = trafficOf({ requestsPerSecond: 3 });
    live.dispatch("model.traffic", event);
    second();
    live.dispatch("model.traffic", { ...event, requestsPerSecond: 4 });
    second();
    // The tick for this second came late, into the next one.
    second();
    live.dispatch("model.traffic", { ...event, requestsPerSecond: 5 });
    live.dispatch("model.traffic", { ...event, requestsPerSecond: 6 });
    expect(tail(store.get(event.model)?.perSecond, 4)).toEqual([3, 4, 5, 6]);
    off();
  });

  it("keeps models apart: one model's event changes only its own snapshot and wakes only its listeners", () => {
    const { store, live, off } = setUp();
    const [a, b] = [trafficOf({ requestsPerSecond: 7 }), trafficOf({ requestsPerSecond: 1 })];
    live.dispatch("model.traffic", a);
    live.dispatch("model.traffic", b);
    const heldB = store.get(b.model);
    const [onA, onB] = [vi.fn(), vi.fn()];
    store.subscribe(a.model, onA);
    store.subscribe(b.model, onB);

    live.dispatch("model.traffic", { ...a, requestsPerSecond: 9, queued: 2 });
    expect(onA).toHaveBeenCalledTimes(1);
    expect(onB).not.toHaveBeenCalled();
    expect(store.get(b.model)).toBe(heldB);
    expect(tail(store.get(a.model)?.perSecond, 1)).toEqual([9]);
    expect(tail(store.get(b.model)?.perSecond, 1)).toEqual([1]);
    expect(store.get(a.model)?.current?.queued).toBe(2);
    off();
  });

  it("does not wake a busy model's card twice a second: its event renders it, the tick does not", () => {
    const { store, live, off, second } = setUp();
    const event = trafficOf();
    const listener = vi.fn();
    store.subscribe(event.model, listener);
    for (let n = 0; n < 5; n++) {
      live.dispatch("model.traffic", event);
      second();
    }
    expect(listener).toHaveBeenCalledTimes(5);
    off();
  });

  it("starts from the server's history, placed by the server's clock, and lets events win their seconds", () => {
    const { store, live, off } = setUp();
    const model = trafficOf().model;
    const second = Math.floor(Date.now() / 1000);
    // The server's clock is 100 s ahead of the page's: its seconds are placed by its own `now`.
    const serverNow = second + 100;
    const figures = {
      inFlight: 0,
      queued: 0,
      waitingSeconds: null,
      waking: false,
      firstByteP50Ms: 90,
      tokensPerSecond: 12,
    };
    live.dispatch("model.traffic", trafficOf({ model, requestsPerSecond: 7 }));
    store.seed({
      model,
      now: serverNow,
      since: serverNow - 400,
      receivedAt: Date.now(),
      seconds: [
        { at: serverNow - 200, requestsPerSecond: 2, ...figures },
        { at: serverNow - 10, requestsPerSecond: 3, ...figures },
        { at: serverNow, requestsPerSecond: 5, ...figures },
        // Older than the page's window: left out.
        { at: serverNow - TRAFFIC_WINDOW_SECONDS - 5, requestsPerSecond: 9, ...figures },
      ],
    });
    const snapshot = store.get(model);
    expect(tail(snapshot?.perSecond, 11)).toEqual([3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]);
    expect(snapshot?.perSecond[TRAFFIC_WINDOW_SECONDS - 1 - 200]).toBe(2);
    expect(snapshot?.perSecond).not.toContain(9);
    expect(snapshot?.current?.requestsPerSecond).toBe(7);
    off();
  });

  it("draws a model the page has heard nothing of from its history, current while its last second is fresh", () => {
    const { store, off, second } = setUp();
    const model = trafficOf().model;
    const now = Math.floor(Date.now() / 1000);
    const figures = {
      inFlight: 2,
      queued: 0,
      waitingSeconds: null,
      waking: false,
      firstByteP50Ms: 90,
      tokensPerSecond: 12,
    };
    store.seed({
      model,
      now,
      since: now - 600,
      receivedAt: Date.now(),
      seconds: [{ at: now - 1, requestsPerSecond: 4, ...figures }],
    });
    expect(tail(store.get(model)?.perSecond, 2)).toEqual([4, 0]);
    expect(store.get(model)?.current).toMatchObject({ model, requestsPerSecond: 4, inFlight: 2 });
    for (let n = 0; n < 3; n++) second();
    expect(store.get(model)?.current).toBeNull();
    expect(store.get(model)?.perSecond).toContain(4);
    off();
  });

  it("keeps no entry for a history without traffic", () => {
    const { store, off } = setUp();
    const now = Math.floor(Date.now() / 1000);
    store.seed({ model: "idle", now, since: now - 600, receivedAt: Date.now(), seconds: [] });
    expect(store.get("idle")).toBeNull();
    off();
  });
});
