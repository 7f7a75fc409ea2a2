import { type Replica, replicaSchema } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Replicas {
  list(): Promise<Replica[]>;
  listByNode(node: string): Promise<Replica[]>;
  upsert(replica: Replica): Promise<Replica>;
  remove(id: string): Promise<boolean>;
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
}

type DocRow = { doc: unknown };
const toReplica = (row: DocRow): Replica => replicaSchema.parse(row.doc);

const UPSERT = `
  insert into replicas (id, model, node, doc)
  select r->>'id', r->>'model', r->>'node', r from jsonb_array_elements($1::jsonb) r
  on conflict (id) do update set model = excluded.model, node = excluded.node, doc = excluded.doc
  where replicas.doc is distinct from excluded.doc
  returning doc`;

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

    async remove(id) {
      return (await sql.query("delete from replicas where id = $1 returning id", [id])).length > 0;
    },

    replaceForNode: (node, list) =>
      sql.transaction(async (tx) => {
        // One row per id (the last report wins): ON CONFLICT cannot touch a row twice in a statement.
        const byId = new Map(list.map((r) => [r.id, replicaSchema.parse({ ...r, node })]));
        const wanted = [...byId.values()];
        // The WHERE on the conflict branch is what keeps an unchanged replica from being rewritten.
        const written = (await tx.query<DocRow>(UPSERT, [jsonb(wanted)])).map(toReplica);
        const writtenById = new Map(written.map((r) => [r.id, r]));
        const removed = await tx.query<{ id: string }>(
          `delete from replicas where node = $1
           and id not in (select jsonb_array_elements_text($2::jsonb)) returning id`,
          [node, jsonb([...byId.keys()])],
        );
        return {
          upserted: wanted.flatMap((r) => writtenById.get(r.id) ?? []),
          removed: removed.map((r) => r.id).sort(),
        };
      }),
  };
}
