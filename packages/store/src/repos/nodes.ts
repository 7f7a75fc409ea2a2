import { type Node, nodeSchema } from "@llmgw/domain";
import { jsonb, onlyRow, type Queryable } from "../db";

export interface Nodes {
  list(): Promise<Node[]>;
  get(name: string): Promise<Node | null>;
  upsert(node: Node): Promise<Node>;
  /** Several upserts in one statement (heartbeats committed together); the names must differ. */
  upsertAll(nodes: readonly Node[]): Promise<void>;
  /** Null when no such node. */
  setState(name: string, state: Node["state"]): Promise<Node | null>;
  /** Forgets a node (its replicas are the replicas repository's); false when there was none. */
  remove(name: string): Promise<boolean>;
}

type DocRow = { doc: unknown };
// Stripping, not strict like the heartbeat input: see storedModel in models.ts.
const storedNode = nodeSchema.strip();
const toNode = (row: DocRow): Node => storedNode.parse(row.doc);

/** `last_seen` is a column so SQL can find silent nodes; a lastSeen that is no timestamp leaves it null. */
function lastSeenColumn(lastSeen: string): string | null {
  const ms = Date.parse(lastSeen);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

export function nodes(sql: Queryable): Nodes {
  return {
    async list() {
      return (await sql.query<DocRow>('select doc from nodes order by name collate "C"')).map(toNode);
    },

    async get(name) {
      const [row] = await sql.query<DocRow>("select doc from nodes where name = $1", [name]);
      return row === undefined ? null : toNode(row);
    },

    async upsert(input) {
      const node = storedNode.parse(input);
      const rows = await sql.query<DocRow>(
        `insert into nodes (name, state, last_seen, doc) values ($1, $2, $3, $4::jsonb)
         on conflict (name) do update set
           state = excluded.state, last_seen = excluded.last_seen, doc = excluded.doc
         returning doc`,
        [node.name, node.state, lastSeenColumn(node.lastSeen), jsonb(node)],
      );
      return toNode(onlyRow(rows, `upsert of node ${node.name}`));
    },

    async upsertAll(input) {
      if (input.length === 0) return;
      const rows = input.map((n) => {
        const node = storedNode.parse(n);
        return { name: node.name, state: node.state, lastSeen: lastSeenColumn(node.lastSeen), doc: node };
      });
      await sql.query(
        `insert into nodes (name, state, last_seen, doc)
         select r->>'name', r->>'state', (r->>'lastSeen')::timestamptz, r->'doc'
         from jsonb_array_elements($1::jsonb) r
         on conflict (name) do update set
           state = excluded.state, last_seen = excluded.last_seen, doc = excluded.doc`,
        [jsonb(rows)],
      );
    },

    async setState(name, state) {
      const [row] = await sql.query<DocRow>(
        `update nodes set state = $2, doc = jsonb_set(doc, '{state}', to_jsonb($2::text))
         where name = $1 returning doc`,
        [name, state],
      );
      return row === undefined ? null : toNode(row);
    },

    async remove(name) {
      return (await sql.query("delete from nodes where name = $1 returning name", [name])).length > 0;
    },
  };
}
