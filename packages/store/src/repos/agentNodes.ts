import type { Queryable } from "../db";
import { isoOf } from "./tokens";

/** Which agent token speaks for which node (SPEC §4: agents are trusted with their own node). */
export interface AgentNode {
  node: string;
  /** The token's name and the SHA-256 of its secret: a token replaced under one name is another token. */
  token: string;
  tokenSha256: string;
  boundAt: string;
}

export interface AgentNodes {
  list(): Promise<AgentNode[]>;
  ofNode(node: string): Promise<AgentNode | null>;
  ofToken(tokenSha256: string): Promise<AgentNode | null>;
  /**
   * Binds the node to the token when neither is bound yet, and returns the binding that holds the
   * node afterwards (another token's when it was bound already). Null when the node is free but
   * the token is bound to another node.
   */
  bind(binding: AgentNode): Promise<AgentNode | null>;
  /** Frees the node of a token (revoked, or gone from the file and its node taken by another). */
  release(tokenSha256: string): Promise<void>;
}

type Row = { node: string; token: string; token_sha256: string; bound_at: Date | string };
const COLUMNS = "node, token, token_sha256, bound_at";
const toBinding = (row: Row): AgentNode => ({
  node: row.node,
  token: row.token,
  tokenSha256: row.token_sha256,
  boundAt: isoOf(row.bound_at),
});

export function agentNodes(sql: Queryable): AgentNodes {
  const one = async (where: string, value: string) => {
    const [row] = await sql.query<Row>(`select ${COLUMNS} from agent_nodes where ${where} = $1`, [value]);
    return row === undefined ? null : toBinding(row);
  };
  return {
    async list() {
      return (await sql.query<Row>(`select ${COLUMNS} from agent_nodes order by node collate "C"`)).map(
        toBinding,
      );
    },

    ofNode: (node) => one("node", node),

    ofToken: (sha256) => one("token_sha256", sha256),

    async bind(binding) {
      const [row] = await sql.query<Row>(
        `insert into agent_nodes (node, token, token_sha256, bound_at) values ($1, $2, $3, $4)
         on conflict do nothing returning ${COLUMNS}`,
        [binding.node, binding.token, binding.tokenSha256, binding.boundAt],
      );
      if (row !== undefined) return toBinding(row);
      return one("node", binding.node);
    },

    async release(tokenSha256) {
      await sql.query("delete from agent_nodes where token_sha256 = $1", [tokenSha256]);
    },
  };
}
