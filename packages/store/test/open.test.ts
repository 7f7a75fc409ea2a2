import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../src/migrations";
import { openStore } from "../src/store";
import { backendFor } from "./backends";
import { aModel } from "./factories";
import { describeOnPostgres } from "./testStore";

describe("PGlite in a data directory", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("keeps what was written across close and reopen, and migrates only once", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "llmgw-store-"));
    dirs.push(dataDir);
    const model = aModel({ aliases: ["persisted"] });

    const first = await openStore({ dataDir });
    await first.models.insert(model);
    const eventId = await first.events.append("model.removed", { name: model.name });
    await first.close();

    const second = await openStore({ dataDir });
    try {
      expect(await second.models.resolve("persisted")).toEqual(model);
      expect(await second.events.append("model.removed", { name: model.name })).toBeGreaterThan(eventId);
      const applied = await second.sql.query<{ id: number }>("select id from schema_migrations");
      expect(applied).toHaveLength(MIGRATIONS.length);
    } finally {
      await second.close();
    }
  });

  it("starts a new data directory with no cached empty database (a fresh machine), then from the copy it left", async () => {
    const cache = await mkdtemp(join(tmpdir(), "llmgw-cache-"));
    dirs.push(cache);
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      for (const round of ["initdb", "copy"]) {
        const dataDir = await mkdtemp(join(tmpdir(), "llmgw-store-"));
        dirs.push(dataDir);
        const store = await openStore({ dataDir });
        try {
          const model = aModel();
          await store.models.insert(model);
          expect(await store.models.get(model.name), round).toEqual(model);
        } finally {
          await store.close();
        }
        expect(
          (await readdir(join(cache, "llmgw"))).filter((f) => f.endsWith(".tar")),
          round,
        ).toHaveLength(1);
      }
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });

  it("refuses a data directory held by a live process, and takes over a dead one's", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "llmgw-store-"));
    dirs.push(dataDir);
    const lockFile = join(dataDir, "db.lock");

    const holder = await openStore({ dataDir });
    await expect(openStore({ dataDir })).rejects.toThrow(/already open in this process/);
    await holder.close();

    await writeFile(lockFile, `${process.ppid}\n`);
    await expect(openStore({ dataDir })).rejects.toThrow(`in use by process ${process.ppid}`);

    const exited = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(lockFile, `${exited}\n`);
    const reopened = await openStore({ dataDir });
    expect(await readFile(lockFile, "utf8")).toBe(`${process.pid}\n`);
    await reopened.close();
  });
});

describeOnPostgres("PostgreSQL shared by several processes", () => {
  const postgres = backendFor("postgres");
  afterAll(() => postgres.dispose());

  it("migrates once when several stores open at the same moment", async () => {
    const options = await postgres.options();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openStore(options)));
    try {
      const applied = await stores[0]?.sql.query<{ id: number }>("select id from schema_migrations");
      expect(applied).toHaveLength(MIGRATIONS.length);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("syncs the same declarations from processes starting together, once", async () => {
    const options = await postgres.options();
    const stores = await Promise.all([1, 2, 3].map(() => openStore(options)));
    try {
      const {
        origin: _o,
        version: _v,
        updatedAt: _a,
        updatedBy: _b,
        ...declared
      } = aModel({ aliases: ["a1"] });
      const results = await Promise.all(stores.map((s) => s.models.syncDeclared([declared])));
      expect(results.flatMap((r) => r.upserted)).toHaveLength(1);
      expect((await stores[0]?.models.resolve("a1"))?.version).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("gives every process the events another one appends, in id order", async () => {
    const options = await postgres.options();
    const [writer, reader] = await Promise.all([openStore(options), openStore(options)]);
    try {
      const heard: number[] = [];
      let done: () => void = () => {};
      const allHeard = new Promise<void>((resolve) => {
        done = resolve;
      });
      const unlisten = await reader.db.listen("llmgw_events", (payload) => {
        heard.push(Number(payload));
        if (heard.length === 20) done();
      });
      // Concurrent transactions, each announcing its change: ids must become visible in order.
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          writer.transaction((tx) => tx.events.append("model.removed", { name: `m-${n}` })),
        ),
      );
      await allHeard;
      expect(heard).toEqual([...ids].sort((a, b) => a - b));
      expect((await reader.events.since(0, 100)).map((e) => e.id)).toEqual(heard);
      await unlisten();
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });
});
