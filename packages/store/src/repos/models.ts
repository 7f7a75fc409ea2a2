import { type Model, modelSchema, type StoredBench, storedBenchSchema } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";
import { NameTaken, VersionConflict } from "../errors";
import { LOCK } from "../migrations";

/** A model as the configuration file declares it: the store adds origin, version and the stamp. */
export type DeclaredModel = Omit<Model, "origin" | "version" | "updatedAt" | "updatedBy">;

export interface Models {
  list(): Promise<Model[]>;
  get(name: string): Promise<Model | null>;
  /** The models counted against `owner`'s quota ("" = the unowned ones), by name. */
  listByOwner(owner: string): Promise<Model[]>;
  /** The model holding `name` as its name or as one of its aliases. */
  resolve(nameOrAlias: string): Promise<Model | null>;
  /** Stores `model` as given (version included). Throws NameTaken when its name or an alias is held. */
  insert(model: Model): Promise<Model>;
  /**
   * Compare-and-set: stores `next` with version `expectedVersion + 1` only if the stored version is
   * still `expectedVersion`, else throws VersionConflict with the stored model. Null when absent.
   * Throws NameTaken when a new alias is held by another model. `next.name` must be `name`.
   */
  update(name: string, expectedVersion: number, next: Model): Promise<Model | null>;
  /**
   * Stores the model's last bench beside it (SPEC §5): its version and doc stay as they are, since
   * a measurement is not an edit. Null when the model is absent.
   */
  setBench(name: string, bench: StoredBench): Promise<Model | null>;
  /** Deletes the model and frees its name and aliases. */
  remove(name: string): Promise<boolean>;
  /**
   * Makes the config-origin models equal to `declared`: inserts new ones, updates changed ones
   * (version + 1; unchanged ones keep their version), removes config models no longer declared.
   * Runtime models are left alone, except one with a declared name, which the declaration takes over.
   */
  syncDeclared(
    declared: readonly DeclaredModel[],
    stamp?: { at?: string; by?: string },
  ): Promise<{ upserted: Model[]; removed: string[] }>;
}

type DocRow = { doc: unknown; bench?: unknown };
// modelSchema refuses unknown keys (right for API input). Docs go in and out through a stripping
// copy: a caller passing a wider object (a view with replicas) stores only the model, and a doc
// holding a key a later version dropped still reads. The bench lives in its own column: it is
// never written into the doc, and read back beside it (a bench a later version cannot read is none).
const storedModel = modelSchema.omit({ bench: true }).strip();
const toModel = (row: DocRow): Model => {
  const model = storedModel.parse(row.doc);
  const bench = storedBenchSchema.safeParse(row.bench);
  return bench.success ? { ...model, bench: bench.data } : model;
};
const COLUMNS = "doc, bench";

// The parts of a doc that say when and by whom, not what: a declaration that differs only there is
// unchanged. jsonb equality is structural, so key order never makes a difference.
const CONTENT = (doc: string) => `(${doc} - 'version' - 'updatedAt' - 'updatedBy')`;

export function models(sql: Queryable): Models {
  return {
    async list() {
      return (await sql.query<DocRow>('select doc, bench from models order by name collate "C"')).map(
        toModel,
      );
    },

    async get(name) {
      const [row] = await sql.query<DocRow>(`select ${COLUMNS} from models where name = $1`, [name]);
      return row === undefined ? null : toModel(row);
    },

    async listByOwner(owner) {
      // A doc without an owner reads as unowned (the schema's default), so it counts as "".
      const rows = await sql.query<DocRow>(
        `select ${COLUMNS} from models where coalesce(doc->>'owner', '') = $1 order by name collate "C"`,
        [owner],
      );
      return rows.map(toModel);
    },

    async resolve(nameOrAlias) {
      const [row] = await sql.query<DocRow>(
        "select m.doc, m.bench from model_names n join models m on m.name = n.model where n.name = $1",
        [nameOrAlias],
      );
      return row === undefined ? null : toModel(row);
    },

    insert: (input) =>
      sql.transaction(async (tx) => {
        const model = storedModel.parse(input);
        const [row] = await tx.query<DocRow>(
          `insert into models (name, origin, version, doc) values ($1, $2, $3, $4::jsonb)
           on conflict (name) do nothing returning ${COLUMNS}`,
          [model.name, model.origin, model.version, jsonb(model)],
        );
        if (row === undefined) throw new NameTaken(model.name, model.name);
        await claimNames(tx, model.name, [model.name, ...model.aliases]);
        return toModel(row);
      }),

    update: (name, expectedVersion, next) =>
      sql.transaction(async (tx) => {
        if (next.name !== name) throw new Error(`cannot rename ${name} to ${next.name}`);
        const doc = storedModel.parse({ ...next, version: expectedVersion + 1 });
        const [row] = await tx.query<DocRow>(
          `update models set version = $3, origin = $4, doc = $5::jsonb
           where name = $1 and version = $2 returning ${COLUMNS}`,
          [name, expectedVersion, doc.version, doc.origin, jsonb(doc)],
        );
        if (row === undefined) {
          const [current] = await tx.query<DocRow>(`select ${COLUMNS} from models where name = $1`, [name]);
          if (current === undefined) return null;
          throw new VersionConflict(toModel(current));
        }
        const names = [name, ...doc.aliases];
        await tx.query(
          "delete from model_names where model = $1 and name not in (select jsonb_array_elements_text($2::jsonb))",
          [name, jsonb(names)],
        );
        await claimNames(tx, name, names);
        return toModel(row);
      }),

    async setBench(name, bench) {
      const [row] = await sql.query<DocRow>(
        `update models set bench = $2::jsonb where name = $1 returning ${COLUMNS}`,
        [name, jsonb(storedBenchSchema.parse(bench))],
      );
      return row === undefined ? null : toModel(row);
    },

    async remove(name) {
      const rows = await sql.query("delete from models where name = $1 returning name", [name]);
      return rows.length > 0;
    },

    syncDeclared: (declared, stamp = {}) =>
      sql.transaction(async (tx) => {
        const duplicate = declared.find((m, i) => declared.findIndex((d) => d.name === m.name) !== i);
        if (duplicate !== undefined) throw new NameTaken(duplicate.name, duplicate.name);
        // Processes starting together on one PostgreSQL sync one after the other: the later one
        // then finds nothing to change, instead of interleaving deletes and claims with the first.
        await tx.query("select pg_advisory_xact_lock($1)", [LOCK.declaredModels]);
        const at = stamp.at ?? new Date().toISOString();
        const by = stamp.by ?? "config";
        const declaredNames = jsonb(declared.map((m) => m.name));
        const removed = await tx.query<{ name: string }>(
          `delete from models where origin = 'config'
           and name not in (select jsonb_array_elements_text($1::jsonb)) returning name`,
          [declaredNames],
        );
        // Free every alias the declared set may reuse before claiming any, so an alias that moved
        // from one declared model to another is not refused by its old holder.
        await tx.query(
          `delete from model_names where name <> model and model in (
             select name from models
             where origin = 'config' or name in (select jsonb_array_elements_text($1::jsonb)))`,
          [declaredNames],
        );
        const upserted: Model[] = [];
        for (const m of declared) {
          const doc = storedModel.parse({ ...m, origin: "config", version: 1, updatedAt: at, updatedBy: by });
          const [row] = await tx.query<DocRow>(
            `insert into models (name, origin, version, doc) values ($1, 'config', 1, $2::jsonb)
             on conflict (name) do update set
               origin = 'config',
               version = models.version + 1,
               doc = excluded.doc || jsonb_build_object('version', models.version + 1)
             where models.origin <> 'config' or ${CONTENT("models.doc")} <> ${CONTENT("excluded.doc")}
             returning ${COLUMNS}`,
            [m.name, jsonb(doc)],
          );
          if (row !== undefined) upserted.push(toModel(row));
        }
        for (const m of declared) await claimNames(tx, m.name, [m.name, ...m.aliases]);
        return { upserted, removed: removed.map((r) => r.name) };
      }),
  };
}

/** Records `names` as held by `model`; throws NameTaken for the first one another model holds. */
async function claimNames(tx: Queryable, model: string, names: readonly string[]): Promise<void> {
  const wanted = [...new Set(names)];
  const claimed = await tx.query<{ name: string }>(
    `insert into model_names (name, model) select n, $1 from jsonb_array_elements_text($2::jsonb) n
     on conflict (name) do nothing returning name`,
    [model, jsonb(wanted)],
  );
  if (claimed.length === wanted.length) return;
  const holders = await tx.query<{ name: string; model: string }>(
    "select name, model from model_names where name in (select jsonb_array_elements_text($1::jsonb))",
    [jsonb(wanted)],
  );
  const holderOf = new Map(holders.map((h) => [h.name, h.model]));
  for (const name of wanted) {
    const holder = holderOf.get(name);
    if (holder !== undefined && holder !== model) throw new NameTaken(name, holder);
  }
}
