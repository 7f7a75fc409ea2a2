import { type Pull, type PullState, pullSchema } from "@llmgw/domain";
import { jsonb, type Queryable } from "../db";
import { lockKey } from "../locks";

/**
 * Pulls from the Hugging Face Hub (SPEC §10.4), stored so an unfinished one continues after a
 * restart. The doc is the pull as the API answers it; `state` mirrors the doc's for SQL. One
 * process downloads a pull at a time: the one whose lease (renewed with every progress write) has
 * not run out; leases are on the database's clock, which every process shares.
 */
export interface Pulls {
  /** Stores a new pull under `key`; null when an unfinished pull already has that key. */
  insert(pull: Pull, key: string): Promise<Pull | null>;
  get(id: string): Promise<Pull | null>;
  /** Newest first. */
  list(limit?: number): Promise<Pull[]>;
  /** The unfinished pull with this key, if any. */
  unfinishedWithKey(key: string): Promise<Pull | null>;
  /** Every unfinished pull, oldest first. */
  unfinished(): Promise<Pull[]>;
  /**
   * Takes the oldest pull that is queued, or downloading under a lease that ran out, for `runner`,
   * when fewer than `maxRunning` pulls download under a live lease; null otherwise.
   */
  claimNext(runner: string, leaseMs: number, maxRunning: number): Promise<Pull | null>;
  /**
   * Writes a downloading pull's progress and renews its lease; null when it is no longer this
   * runner's to write (cancelled, or taken over), which tells the runner to stop.
   */
  progress(pull: Pull, runner: string, leaseMs: number): Promise<Pull | null>;
  /** Ends a pull this runner holds (complete, failed or cancelled); null when it is not its own. */
  finish(pull: Pull, runner: string): Promise<Pull | null>;
  /**
   * Marks an unfinished pull cancelled. Returns it with whether a runner's lease is live (then that
   * runner removes what it wrote); null when it is not unfinished.
   */
  cancel(id: string, error: string | null): Promise<{ pull: Pull; running: string | null } | null>;
  /** Lets every downloading pull be claimed again at once (an embedded store has no other process). */
  expireLeases(): Promise<void>;
}

type DocRow = { doc: unknown };
const toPull = (row: DocRow): Pull => pullSchema.parse(row.doc);
const UNFINISHED = "state in ('queued', 'downloading')";

export function pulls(sql: Queryable): Pulls {
  return {
    async insert(pull, key) {
      const p = pullSchema.parse(pull);
      const rows = await sql.query<DocRow>(
        `insert into mirror_pulls (id, pull_key, model, version, state, created_at, doc)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb)
         on conflict (pull_key) where ${UNFINISHED} do nothing
         returning doc`,
        [p.id, key, p.model, p.version, p.state, p.at, jsonb(p)],
      );
      return rows[0] ? toPull(rows[0]) : null;
    },

    async get(id) {
      const rows = await sql.query<DocRow>("select doc from mirror_pulls where id = $1", [id]);
      return rows[0] ? toPull(rows[0]) : null;
    },

    async list(limit = 100) {
      const rows = await sql.query<DocRow>(
        "select doc from mirror_pulls order by created_at desc, id desc limit $1",
        [limit],
      );
      return rows.map(toPull);
    },

    async unfinishedWithKey(key) {
      const rows = await sql.query<DocRow>(
        `select doc from mirror_pulls where pull_key = $1 and ${UNFINISHED}`,
        [key],
      );
      return rows[0] ? toPull(rows[0]) : null;
    },

    async unfinished() {
      const rows = await sql.query<DocRow>(
        `select doc from mirror_pulls where ${UNFINISHED} order by created_at, id`,
      );
      return rows.map(toPull);
    },

    claimNext: (runner, leaseMs, maxRunning) =>
      sql.transaction(async (tx) => {
        // Every process counts and claims under one lock, so two never both take the second slot.
        await lockKey(tx, "mirror_pulls.claim");
        const [running] = await tx.query<{ n: number }>(
          "select count(*)::int as n from mirror_pulls where state = 'downloading' and lease_until > now()",
        );
        if ((running?.n ?? 0) >= maxRunning) return null;
        const rows = await tx.query<DocRow>(
          `update mirror_pulls
           set state = 'downloading', runner = $1,
               lease_until = now() + make_interval(secs => $2::float8 / 1000),
               doc = jsonb_set(doc, '{state}', '"downloading"')
           where id = (
             select id from mirror_pulls
             where state = 'queued' or (state = 'downloading' and (lease_until is null or lease_until <= now()))
             order by created_at, id limit 1
           )
           returning doc`,
          [runner, leaseMs],
        );
        return rows[0] ? toPull(rows[0]) : null;
      }),

    async progress(pull, runner, leaseMs) {
      const rows = await sql.query<DocRow>(
        `update mirror_pulls
         set doc = $3::jsonb, lease_until = now() + make_interval(secs => $4::float8 / 1000)
         where id = $1 and runner = $2 and state = 'downloading'
         returning doc`,
        [pull.id, runner, jsonb(pullSchema.parse(pull)), leaseMs],
      );
      return rows[0] ? toPull(rows[0]) : null;
    },

    async finish(pull, runner) {
      const rows = await sql.query<DocRow>(
        `update mirror_pulls set state = $3, doc = $4::jsonb, runner = null, lease_until = null
         where id = $1 and runner = $2
         returning doc`,
        [pull.id, runner, pull.state satisfies PullState, jsonb(pullSchema.parse(pull))],
      );
      return rows[0] ? toPull(rows[0]) : null;
    },

    async cancel(id, error) {
      const rows = await sql.query<DocRow & { running: string | null }>(
        `with before as (
           select id, state, runner, lease_until from mirror_pulls where id = $1 and ${UNFINISHED} for update
         )
         update mirror_pulls p
         set state = 'cancelled', doc = p.doc || jsonb_build_object('state', 'cancelled', 'error', $2::text)
         from before where p.id = before.id
         returning p.doc,
           case when before.state = 'downloading' and before.lease_until > now() then before.runner end as running`,
        [id, error],
      );
      const row = rows[0];
      return row ? { pull: toPull(row), running: row.running } : null;
    },

    async expireLeases() {
      await sql.query("update mirror_pulls set lease_until = null where state = 'downloading'");
    },
  };
}
