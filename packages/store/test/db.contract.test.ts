import { expect, it, vi } from "vitest";
import { TransactionAborted } from "../src/db";
import { keyHash } from "../src/locks";
import { LOCK, MIGRATIONS, migrate } from "../src/migrations";
import { backendFor, openFor, useStore } from "./backends";
import { aNode, aQuota, aReplica, unique } from "./factories";
import { describeOnEachDatabase, describeOnPostgres } from "./testStore";

// What the Db seam promises, on every driver: the same types back, the same transaction semantics.
describeOnEachDatabase("Db on $name", ({ kind }) => {
  const store = useStore(backendFor(kind));

  it("returns int8, numeric, jsonb and timestamptz the same way", async () => {
    const [row] = await store.db.query<Record<string, unknown>>(
      `select 9007199254740991::int8 as big, count(*) as n, 2.5::numeric as num, now() as at,
              $1::jsonb as obj, $2::jsonb as arr, $3::jsonb as str, 'null'::jsonb as jnull`,
      ['{"a":[1,{"b":null}]}', "[1,2]", '"x"'],
    );
    expect(row).toEqual({
      big: Number.MAX_SAFE_INTEGER,
      n: 1,
      num: 2.5,
      at: expect.any(Date),
      obj: { a: [1, { b: null }] },
      arr: [1, 2],
      str: "x",
      jnull: null,
    });
  });

  it("applies migrations once: migrating again does nothing", async () => {
    expect(await migrate(store.db)).toEqual([]);
    const rows = await store.db.query<{ id: number }>("select id from schema_migrations order by id");
    expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
  });

  it("refuses a database migrated by a newer llmgw", async () => {
    await expect(migrate(store.db, [])).rejects.toThrow(/newer version/);
  });

  it("rolls a transaction back when its function throws", async () => {
    const node = aNode();
    await expect(
      store.transaction(async (tx) => {
        await tx.nodes.upsert(node);
        await tx.replicas.upsert(aReplica({ node: node.name }));
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await store.nodes.list()).toEqual([]);
    expect(await store.replicas.list()).toEqual([]);
  });

  it("commits what a transaction wrote", async () => {
    const node = aNode();
    await store.transaction((tx) => tx.nodes.upsert(node));
    expect(await store.nodes.get(node.name)).toEqual(node);
  });

  it("undoes only a failed inner transaction (a savepoint) and keeps the outer one", async () => {
    const kept = aNode();
    const undone = aNode();
    await store.transaction(async (tx) => {
      await tx.nodes.upsert(kept);
      await tx
        .transaction(async (inner) => {
          await inner.nodes.upsert(undone);
          await inner.sql.query("select 1/0");
        })
        .catch(() => undefined);
    });
    expect((await store.nodes.list()).map((n) => n.name)).toEqual([kept.name]);
  });

  it("refuses to report a commit when a failed statement was swallowed", async () => {
    const node = aNode();
    await expect(
      store.transaction(async (tx) => {
        await tx.nodes.upsert(node);
        await tx.sql.query("select 1/0").catch(() => undefined);
      }),
    ).rejects.toBeInstanceOf(TransactionAborted);
    expect(await store.nodes.get(node.name)).toBeNull();
  });

  it("delivers a NOTIFY to a listener once the transaction commits", async () => {
    const received: string[] = [];
    let arrived: (payload: string) => void = () => {};
    const first = new Promise<string>((resolve) => {
      arrived = resolve;
    });
    const unlisten = await store.db.listen("llmgw_test", (payload) => {
      received.push(payload);
      arrived(payload);
    });
    await store.transaction(async (tx) => {
      await tx.sql.query("select pg_notify('llmgw_test', 'hello')");
      expect(received).toEqual([]);
    });
    expect(await first).toBe("hello");
    await unlisten();
  });

  it("runs transactions that lock one key one after another: no read-then-write is lost", async () => {
    const key = unique("counter");
    const quota = await store.quotas.put(aQuota({ replicas: 0 }));
    const add = () =>
      store.transaction(async (tx) => {
        await tx.lock(key);
        const seen = (await tx.quotas.get(quota.owner))?.replicas ?? 0;
        await tx.quotas.put({ ...quota, replicas: seen + 1 });
      });
    await Promise.all(Array.from({ length: 8 }, add));
    expect(await store.quotas.get(quota.owner)).toMatchObject({ replicas: 8 });
  });

  it("gives a lock up when its transaction ends, committed or rolled back", async () => {
    const key = unique("lock");
    await store.transaction((tx) => tx.lock(key));
    await expect(
      store.transaction(async (tx) => {
        await tx.lock(key);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await store.transaction(async (tx) => {
      await tx.transaction((inner) => inner.lock(key));
      await tx.lock(key);
    });
  });

  it("refuses a channel name that would need quoting", async () => {
    await expect(store.db.listen("Bad Channel", () => {})).rejects.toThrow(/invalid channel/);
  });
});

// A backend per block: each describe block disposes (drops the schema of) the one it was given.
describeOnPostgres("lock() on PostgreSQL", () => {
  const store = useStore(backendFor("postgres"), { reset: false });

  it("makes a second holder of the key wait until the first ends, and no holder of another key", async () => {
    const key = unique("lock");
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const order: string[] = [];
    const first = store.transaction(async (tx) => {
      await tx.lock(key);
      holding();
      await released;
      order.push("first ends");
    });
    await held;
    await store.transaction((tx) => tx.lock(unique("lock")));
    const second = store.transaction(async (tx) => {
      await tx.lock(key);
      order.push("second holds");
    });
    // Waiting, as the server sees it: an advisory lock on this key asked for and not granted.
    await vi.waitFor(async () => {
      const [row] = await store.db.query<{ n: number }>(
        `select count(*) as n from pg_locks where locktype = 'advisory' and not granted
         and classid = $1::int4::oid and objid = $2::int4::oid and objsubid = 2`,
        [LOCK.keys, keyHash(key)],
      );
      expect(row?.n).toBe(1);
    });
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["first ends", "second holds"]);
  });
});

describeOnPostgres("read() on PostgreSQL", () => {
  const backend = backendFor("postgres");
  const store = useStore(backend, { reset: false });

  it("sees one moment, whatever commits meanwhile, and refuses to write", async () => {
    const writer = await openFor(backend);
    try {
      await writer.replicas.upsert(aReplica({ node: "n-1" }));
      const seen = await store.read(async (tx) => {
        const before = await tx.replicas.list();
        await writer.replicas.upsert(aReplica({ node: "n-1" }));
        await writer.nodes.upsert(aNode({ name: "n-1" }));
        return { before, after: await tx.replicas.list(), nodes: await tx.nodes.list() };
      });
      expect(seen.after).toEqual(seen.before);
      expect(seen.before).toHaveLength(1);
      expect(seen.nodes).toEqual([]);
      expect(await store.replicas.list()).toHaveLength(2);
      await expect(store.read((tx) => tx.nodes.upsert(aNode()))).rejects.toThrow(/read-only/);
    } finally {
      await writer.close();
    }
  });
});
