import { describe, expect, it } from "vitest";
import { TransactionAborted } from "../src/db";
import { MIGRATIONS, migrate } from "../src/migrations";
import { backends, openFor, postgresBackend, useStore } from "./backends";
import { aNode, aReplica } from "./factories";

// What the Db seam promises, on every driver: the same types back, the same transaction semantics.
describe.each(backends())("Db on $name", (backend) => {
  const store = useStore(backend);

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

  it("refuses a channel name that would need quoting", async () => {
    await expect(store.db.listen("Bad Channel", () => {})).rejects.toThrow(/invalid channel/);
  });
});

const postgres = postgresBackend();
describe.skipIf(postgres === undefined)("read() on PostgreSQL", () => {
  const backend = postgres as NonNullable<typeof postgres>;
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
