import { compareText, type Replica, replicaSchema } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Replicas {
  list(): Promise<Replica[]>;
  listByNode(node: string): Promise<Replica[]>;
  /** The replicas on any of `nodes`, in one query. */
  listByNodes(nodes: readonly string[]): Promise<Replica[]>;
  /** The replicas of any of `models` (managed or not), in one query. */
  listByModels(models: readonly string[]): Promise<Replica[]>;
  upsert(replica: Replica): Promise<Replica>;
  remove(id: string): Promise<boolean>;
  /** Deletes every replica on `node` and returns them. */
  removeByNode(node: string): Promise<Replica[]>;
  /** Where each of `ids` the store holds is: its node, or null for a replica placed nowhere yet. */
  nodesOf(ids: readonly string[]): Promise<Map<string, string | null>>;
  /**
   * Many upserts and removals in two statements (a scheduler run's decisions), with the outcome of
   * doing them one by one in the given order: for an id written twice, the last write wins.
   * Returns the writes as stored (the last of each id, each replica as its row now holds it).
   */
  writeAll(writes: readonly ReplicaWrite[]): Promise<ReplicaWrite[]>;
  /**
   * Makes the replicas on `node` exactly `replicas` (a heartbeat's report). Writes only rows that
   * differ and returns them: `upserted` (new or changed, in the given order) and `removed` (ids that
   * were on the node and are not in the list). An unchanged report writes nothing and returns empties.
   * A listed replica is placed on `node` whatever its `node` field said.
   */
  replaceForNode(
    node: string,
    replicas: readonly Replica[],
  ): Promise<{ upserted: Replica[]; removed: string[] }>;
  /**
   * `replaceForNode` for several nodes in two statements (heartbeats committed together), one
   * outcome a node, in the given order. The nodes must differ, and so must the ids across them.
   */
  replaceForNodes(
    lists: readonly { node: string; replicas: readonly Replica[] }[],
  ): Promise<{ upserted: Replica[]; removed: string[] }[]>;
}

/** A replica written (upserted) or, with `removed`, deleted by id. */
export type ReplicaWrite = { replica: Replica; removed?: boolean };

type DocRow = { doc: unknown };
const toReplica = (row: DocRow): Replica => replicaSchema.parse(row.doc);

const UPSERT = `
  insert into replicas (id, model, node, doc)
  select r->>'id', r->>'model', r->>'node', r from jsonb_array_elements($1::jsonb) r
  on conflict (id) do update set model = excluded.model, node = excluded.node, doc = excluded.doc
  where replicas.doc is distinct from excluded.doc`;
const UPSERT_IDS = `${UPSERT} returning id`;

export function replicas(sql: Queryable): Replicas {
  return {
    async list() {
      return (await sql.query<DocRow>('select doc from replicas order by id collate "C"')).map(toReplica);
    },

    async listByNode(node) {
      const rows = await sql.query<DocRow>(
        'select doc from replicas where node = $1 order by id collate "C"',
        [node],
      );
      return rows.map(toReplica);
    },

    async listByModels(models) {
      if (models.length === 0) return [];
      const rows = await sql.query<DocRow>(
        `select doc from replicas where model = any($1::text[]) order by id collate "C"`,
        [[...models]],
      );
      return rows.map(toReplica);
    },

    async upsert(input) {
      const replica = replicaSchema.parse(input);
      const rows = await sql.query<DocRow>(
        `insert into replicas (id, model, node, doc) values ($1, $2, $3, $4::jsonb)
         on conflict (id) do update set model = excluded.model, node = excluded.node, doc = excluded.doc
         returning doc`,
        [replica.id, replica.model, replica.node, jsonb(replica)],
      );
      return toReplica(onlyRow(rows, `upsert of replica ${replica.id}`));
    },

    async listByNodes(nodes) {
      if (nodes.length === 0) return [];
      const rows = await sql.query<DocRow>(
        `select doc from replicas where node = any($1::text[]) order by id collate "C"`,
        [[...nodes]],
      );
      return rows.map(toReplica);
    },

    async writeAll(writes) {
      const last = new Map<string, { replica: Replica; removed?: boolean }>();
      for (const write of writes) {
        last.delete(write.replica.id);
        last.set(write.replica.id, write);
      }
      const kept = [...last.values()].map((w) =>
        w.removed ? w : { replica: replicaSchema.parse(w.replica) },
      );
      const upserts = kept.filter((w) => !w.removed).map((w) => w.replica);
      const removes = kept.filter((w) => w.removed).map((w) => w.replica.id);
      if (upserts.length > 0) await sql.query(UPSERT, [jsonb(upserts)]);
      if (removes.length > 0) await sql.query("delete from replicas where id = any($1::text[])", [removes]);
      return kept;
    },

    async remove(id) {
      return (await sql.query("delete from replicas where id = $1 returning id", [id])).length > 0;
    },

    async removeByNode(node) {
      const rows = await sql.query<DocRow>("delete from replicas where node = $1 returning doc", [node]);
      return rows.map(toReplica).sort((a, b) => compareText(a.id, b.id));
    },

    async nodesOf(ids) {
      if (ids.length === 0) return new Map();
      const rows = await sql.query<{ id: string; node: string | null }>(
        "select id, node from replicas where id = any($1::text[])",
        [[...ids]],
      );
      return new Map(rows.map((r) => [r.id, r.node]));
    },

    replaceForNode: async (node, list) => {
      const [outcome] = await replaceAll(sql, [{ node, replicas: list }]);
      return outcome ?? { upserted: [], removed: [] };
    },
    replaceForNodes: (lists) => replaceAll(sql, lists),
  };
}

function replaceAll(
  sql: Queryable,
  lists: readonly { node: string; replicas: readonly Replica[] }[],
): Promise<{ upserted: Replica[]; removed: string[] }[]> {
  if (lists.length === 0) return Promise.resolve([]);
  return sql.transaction(async (tx) => {
    // One row per id (the last report wins): ON CONFLICT cannot touch a row twice in a statement.
    const wanted = lists.map(({ node, replicas }) => [
      ...new Map(replicas.map((r) => [r.id, replicaSchema.parse({ ...r, node })])).values(),
    ]);
    // The WHERE on the conflict branch is what keeps an unchanged replica from being rewritten.
    // Only the ids come back: a row written holds exactly the document sent.
    const all = wanted.flat();
    const written = new Set((await tx.query<{ id: string }>(UPSERT_IDS, [jsonb(all)])).map((row) => row.id));
    // The ids differ across the nodes, and each was just written onto its own node: a row on one
    // of these nodes whose id is in no list is one its node no longer reports.
    const removed = await tx.query<{ id: string; node: string }>(
      `delete from replicas where node = any($1::text[]) and not (id = any($2::text[]))
       returning id, node`,
      [lists.map((l) => l.node), all.map((r) => r.id)],
    );
    return lists.map(({ node }, i) => ({
      upserted: (wanted[i] ?? []).filter((r) => written.has(r.id)),
      removed: removed
        .filter((r) => r.node === node)
        .map((r) => r.id)
        .sort(),
    }));
  });
}
