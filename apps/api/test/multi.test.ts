import { openPostgres } from "@llmgw/store";
import { describeOnPostgres } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./harness";
import { useTwoServers } from "./multi-kit";
import { EventStream, type SseEvent } from "./sse";

// SPEC §4: several `llmgw serve` processes on one PostgreSQL. A change through one reaches every
// process's stream; one process schedules; when it dies another takes over, and a stream resumed
// on the survivor with Last-Event-ID misses nothing.

/** Reads a stream into an array as events arrive, until closed. */
function collect(stream: EventStream): { events: SseEvent[]; done: Promise<void> } {
  const events: SseEvent[] = [];
  const done = (async () => {
    for (;;) {
      try {
        events.push(await stream.next(60_000));
      } catch {
        return;
      }
    }
  })();
  return { events, done };
}

async function schedulerEnabled(url: string): Promise<boolean | null> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const match = /^llmgw_scheduler_enabled (\d)/m.exec(text);
    return match ? match[1] === "1" : null;
  } catch {
    return null;
  }
}

async function waitFor<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describeOnPostgres("two processes on one PostgreSQL", () => {
  const { servers, streams, database } = useTwoServers();

  it("shares changes, one scheduler, fails over within 10 s, and a resumed stream misses nothing", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");

    // Exactly one leads.
    const enabled = await waitFor("one leader", 10_000, async () => {
      const both = [await schedulerEnabled(a.url), await schedulerEnabled(b.url)];
      return both.filter((x) => x === true).length === 1 && both.includes(false) ? both : null;
    });
    const [leader, survivor] = enabled[0] ? [a, b] : [b, a];

    // A browser on the leader, and one on the other process.
    const onLeader = await EventStream.open(`${leader.url}/api/v1/events`, undefined, { storedOnly: true });
    const onSurvivor = await EventStream.open(`${survivor.url}/api/v1/events`, undefined, {
      storedOnly: true,
    });
    streams.push(onLeader, onSurvivor);
    const seenBefore = collect(onLeader);

    // A change through one process reaches the other's stream.
    const first = modelInput();
    expect((await post(leader.url, "/models", first)).status).toBe(201);
    const remote = await onSurvivor.until(
      (e) => e.event === "model.changed" && e.data.includes(first.name),
      10_000,
    );
    expect(remote.at(-1)?.id).toMatch(/^\d+$/);

    // Writes through both at once: the leader's stream must get all of them, in order, once.
    const node = heartbeat();
    expect((await post(survivor.url, "/agents/heartbeat", node)).status).toBe(200);
    const writes = Array.from({ length: 10 }, (_, i) =>
      post(i % 2 === 0 ? a.url : b.url, "/models", modelInput()).then((res) => res.status),
    );
    expect(await Promise.all(writes)).toEqual(Array(10).fill(201));
    // The leader plans the catalogue's replicas (placed on the node, or pending when it is full):
    // only a scheduler writes a replica no agent reported.
    const planned = async (model: string) => {
      const replicas = (await (await fetch(`${survivor.url}/api/v1/fleet/replicas`)).json()) as {
        model: string;
      }[];
      return replicas.some((r) => r.model === model);
    };
    await waitFor("a replica planned by the leader", 10_000, () => planned(first.name));

    // A wake through the process that does not schedule reaches the one that does (stored, and
    // NOTIFYed): its scheduler runs only every hour here, so only the notification can wake it.
    const sleeper = modelInput({ scaling: { min: 0, max: 1, idleTimeoutSeconds: 600 } });
    expect((await post(survivor.url, "/models", sleeper)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    expect(await planned(sleeper.name)).toBe(false);
    expect((await post(survivor.url, `/models/${sleeper.name}/wake`, {})).status).toBe(202);
    await waitFor("the leader to place the model woken through the other process", 10_000, () =>
      planned(sleeper.name),
    );

    const db = await openPostgres(database.url());
    const storedIds = async () =>
      (await db.query<{ id: number }>("select id from events order by id")).map((r) => r.id);
    try {
      // Let the leader's stream catch up with everything stored so far, then kill it mid-stream.
      const upTo = (await storedIds()).at(-1) ?? 0;
      await waitFor(
        "the leader's stream to catch up",
        10_000,
        async () => Number(seenBefore.events.at(-1)?.id ?? 0) >= upTo,
      );
      const killedAt = performance.now();
      await leader.stop("SIGKILL");
      await seenBefore.done;
      const before = seenBefore.events.map((e) => Number(e.id));
      const lastSeen = before.at(-1) ?? 0;

      // The survivor takes the scheduler within 10 s.
      await waitFor(
        "the survivor to lead",
        10_000,
        async () => (await schedulerEnabled(survivor.url)) === true,
      );
      const failoverMs = Math.round(performance.now() - killedAt);
      console.log(`scheduler failover after kill -9 of the leader: ${failoverMs} ms`);
      expect(failoverMs).toBeLessThan(10_000);

      // …and schedules: a new model gets a replica placed by it.
      const second = modelInput();
      expect((await post(survivor.url, "/models", second)).status).toBe(201);
      await waitFor("a replica planned by the new leader", 10_000, () => planned(second.name));

      // The browser reconnects to the survivor from the last id it saw.
      const resumed = await EventStream.open(`${survivor.url}/api/v1/events`, String(lastSeen), {
        storedOnly: true,
      });
      streams.push(resumed);
      const all = await storedIds();
      const after = (await resumed.take(all.filter((id) => id > lastSeen).length, 10_000)).map((e) =>
        Number(e.id),
      );
      // Before the kill: every stored id up to the last seen, in order, once (own and relayed events).
      expect(before).toEqual(all.filter((id) => id <= lastSeen && id >= (before[0] ?? 0)));
      // After: contiguous with that, nothing missed.
      expect(after).toEqual(all.filter((id) => id > lastSeen));
    } finally {
      await db.close();
    }
  }, 120_000);
});

describeOnPostgres("two processes when PostgreSQL cuts their connections", () => {
  const { servers, streams, database } = useTwoServers();

  it("keeps relaying and ends with exactly one leader", async () => {
    const [a, b] = servers;
    if (!a || !b) throw new Error("servers did not start");
    const stream = await EventStream.open(`${b.url}/api/v1/events`, undefined, { storedOnly: true });
    streams.push(stream);

    // Every connection the two processes hold: pools, LISTEN, and the leader's lock.
    const db = await openPostgres(database.url());
    try {
      const cut = await db.query<{ n: number }>(
        `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid()`,
      );
      expect(cut[0]?.n).toBeGreaterThanOrEqual(3);
    } finally {
      await db.close();
    }

    // A write through A still reaches B's stream (its LISTEN connection is gone: the poll, or a
    // new LISTEN, carries it). The first request may meet a pooled connection that died.
    const model = modelInput();
    await waitFor(
      "a write after the cut",
      10_000,
      // …or a keep-alive socket the server closed meanwhile: a failed fetch is tried again too.
      async () => (await post(a.url, "/models", model).catch(() => null))?.status === 201,
    );
    await stream.until((e) => e.event === "model.changed" && e.data.includes(model.name), 5_000);

    // The lock went with its connection; within 10 s exactly one process holds it again.
    await waitFor("exactly one leader again", 10_000, async () => {
      const both = [await schedulerEnabled(a.url), await schedulerEnabled(b.url)];
      return both.filter((x) => x === true).length === 1 && both.includes(false);
    });
  }, 60_000);

  it("LISTEN comes back by itself after its connection is cut", async () => {
    const listener = await openPostgres(database.url());
    const sender = await openPostgres(database.url());
    try {
      const heard: string[] = [];
      await listener.listen("llmgw_test_relisten", (payload) => heard.push(payload));
      await sender.exec(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and query = 'listen llmgw_test_relisten'`,
      );
      await waitFor("a notification after the cut", 5_000, async () => {
        await sender.notify("llmgw_test_relisten", "again");
        return heard.includes("again");
      });
    } finally {
      await listener.close();
      await sender.close();
    }
  });
});
