import type { UsageRow } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";

/**
 * Usage counted by hour, model, client token and owner (SPEC §12.1). Each process adds what it
 * counted since its last write; rows are summed here, so processes never overwrite each other.
 */
export interface Usage {
  /** Adds each row's counts to the stored hour's (creating it), in one statement. */
  add(rows: readonly UsageRow[]): Promise<void>;
  /** Rows whose hour is in [from, to) (ms since the epoch), oldest first. */
  between(from: number, to: number): Promise<UsageRow[]>;
  /** Deletes the hours before `before` (ms since the epoch); returns how many rows went. */
  prune(before: number): Promise<number>;
}

type Row = {
  hour: Date | string;
  model: string;
  token: string;
  owner: string;
  requests: string | number;
  refused: string | number;
  failed: string | number;
  prompt_tokens: string | number;
  cached_tokens: string | number;
  completion_tokens: string | number;
};

// One parameter whatever the number of rows: the rows go as one JSON array, so a process with
// thousands of keys in a second still writes one statement (and no parameter limit applies).
const ADD = `
  insert into usage_hours as u
    (hour, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens, completion_tokens)
  select r.hour, r.model, r.token, r.owner, r.requests, r.refused, r.failed,
         r."promptTokens", r."cachedTokens", r."completionTokens"
  from jsonb_to_recordset($1::jsonb) as r(
    hour timestamptz, model text, token text, owner text, requests bigint, refused bigint,
    failed bigint, "promptTokens" bigint, "cachedTokens" bigint, "completionTokens" bigint)
  on conflict (hour, model, token, owner) do update set
    requests = u.requests + excluded.requests,
    refused = u.refused + excluded.refused,
    failed = u.failed + excluded.failed,
    prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
    cached_tokens = u.cached_tokens + excluded.cached_tokens,
    completion_tokens = u.completion_tokens + excluded.completion_tokens`;

export function usage(sql: Queryable): Usage {
  return {
    async add(rows) {
      if (rows.length === 0) return;
      await sql.query(ADD, [jsonb(rows.map((r) => ({ ...r, hour: new Date(r.hour).toISOString() })))]);
    },

    async between(from, to) {
      const rows = await sql.query<Row>(
        `select hour, model, token, owner, requests, refused, failed, prompt_tokens, cached_tokens,
                completion_tokens
         from usage_hours where hour >= $1 and hour < $2 order by hour, model, token, owner`,
        [new Date(from).toISOString(), new Date(to).toISOString()],
      );
      return rows.map((r) => ({
        hour: new Date(r.hour).getTime(),
        model: r.model,
        token: r.token,
        owner: r.owner,
        requests: Number(r.requests),
        refused: Number(r.refused),
        failed: Number(r.failed),
        promptTokens: Number(r.prompt_tokens),
        cachedTokens: Number(r.cached_tokens),
        completionTokens: Number(r.completion_tokens),
      }));
    },

    async prune(before) {
      const gone = await sql.query<{ n: string | number }>(
        "with gone as (delete from usage_hours where hour < $1 returning 1) select count(*) as n from gone",
        [new Date(before).toISOString()],
      );
      return Number(gone[0]?.n ?? 0);
    },
  };
}
