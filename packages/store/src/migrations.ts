import type { Db } from "./db";

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** Advisory-lock keys the store takes; one list so two uses never share a key by accident. */
export const LOCK = {
  migrations: 0x6c6c_6d01,
  events: 0x6c6c_6d02,
  declaredModels: 0x6c6c_6d03,
  /** The first half of `tx.lock(key)`'s two-part lock: a space of its own for keyed locks. */
  keys: 0x6c6c_6d04,
} as const;

// Append only: a migration that has run somewhere is never edited, a change is a new entry.
// Whole entities live in `doc` (the domain's JSON, so a new field needs no migration); columns
// hold only what SQL must compare, index or constrain.
export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: "initial schema",
    sql: `
      create table models (
        name    text primary key,
        origin  text not null check (origin in ('config', 'runtime')),
        version int not null check (version >= 1),
        doc     jsonb not null
      );
      -- A model's name and its aliases share one namespace: one row per name, the primary key
      -- refuses a second holder.
      create table model_names (
        name  text primary key,
        model text not null references models (name) on delete cascade
      );
      create index model_names_model on model_names (model);

      create table nodes (
        name      text primary key,
        state     text not null check (state in ('ready', 'draining', 'down')),
        last_seen timestamptz,
        doc       jsonb not null
      );

      -- No foreign keys to models or nodes: agents report replicas of models the catalogue does
      -- not know (unmanaged), and a pending replica has no node.
      create table replicas (
        id    text primary key,
        model text not null,
        node  text,
        doc   jsonb not null
      );
      create index replicas_node on replicas (node);
      create index replicas_model on replicas (model);

      create table quotas (
        owner     text primary key,
        memory_gb int,
        cpu_cores int,
        gpus      int,
        replicas  int
      );

      create table classes (
        name        text primary key,
        rank        int not null,
        description text not null default ''
      );

      create table audit (
        id     bigserial primary key,
        at     timestamptz not null,
        by     text not null,
        action text not null,
        target text not null,
        field  text,
        before jsonb,
        after  jsonb
      );
      create index audit_target on audit (target, id);

      create table events (
        id   bigserial primary key,
        at   timestamptz not null default now(),
        type text not null,
        data jsonb not null
      );

      create table mirror_versions (
        model   text not null,
        version text not null,
        doc     jsonb not null,
        primary key (model, version)
      );
    `,
  },
  {
    id: 2,
    name: "audit entries carry the model version they produced",
    sql: "alter table audit add column version int;",
  },
  {
    id: 3,
    name: "access tokens and browser sessions",
    sql: `
      -- Only the SHA-256 of a token is kept: a copy of the database signs nobody in. Tokens from
      -- the configuration file are not stored here (the file is their only source).
      create table tokens (
        name         text primary key,
        role         text not null check (role in ('viewer', 'operator', 'admin', 'agent')),
        sha256       text not null unique check (sha256 ~ '^[0-9a-f]{64}$'),
        created_at   timestamptz not null,
        created_by   text not null,
        last_used_at timestamptz
      );

      -- A browser's sign-in. The cookie holds a random id; only its SHA-256 is stored. No foreign
      -- key to tokens: a session may belong to a token from the configuration file. token_sha256
      -- ties it to the token as it was at sign-in, so a token replaced under the same name ends it.
      create table sessions (
        id_sha256    text primary key,
        token        text not null,
        token_sha256 text not null,
        created_at   timestamptz not null,
        last_seen_at timestamptz not null
      );
      create index sessions_token on sessions (token);
    `,
  },
  {
    id: 4,
    name: "on-demand wakes are kept, so any process can wake a model and a new leader knows",
    sql: `
      -- One row per woken on-demand model: the scheduler wants a replica of it until it has been
      -- idle for the model's timeout, then deletes the row. No foreign key: a wake of a model
      -- removed meanwhile is simply forgotten by the next run.
      create table wakes (
        model     text primary key,
        woken_at  timestamptz not null
      );
    `,
  },
  {
    id: 5,
    name: "an event names the process that wrote it",
    // A process reading events back (several processes on one PostgreSQL) tells its own, whose
    // changes it already holds, from another's, which it must read the store for.
    sql: "alter table events add column origin text;",
  },
  {
    id: 6,
    name: "an agent token is bound to one node",
    sql: `
      -- The node an agent token was created for (null: bound on its first accepted heartbeat).
      alter table tokens add column node text;
      -- Which agent token speaks for which node: one node per token, one token per node. Tokens
      -- of the configuration file have no row in tokens, so the binding names the token by name
      -- and hash; a binding whose token is gone (revoked, replaced) no longer holds its node.
      create table agent_nodes (
        node         text primary key,
        token        text not null,
        token_sha256 text not null unique,
        bound_at     timestamptz not null
      );
    `,
  },
  {
    id: 7,
    name: "client tokens and their limits",
    sql: `
      -- A client token calls the request path only (/v1, SPEC §7), within the limits it carries.
      alter table tokens drop constraint tokens_role_check;
      alter table tokens add constraint tokens_role_check
        check (role in ('viewer', 'operator', 'admin', 'agent', 'client'));
      -- models: a JSON array of catalogue names or aliases the token may call (null: every model).
      -- requests_per_minute, concurrency: null is no limit. Only client tokens carry any of them.
      alter table tokens add column models jsonb check (models is null or jsonb_typeof(models) = 'array');
      alter table tokens add column requests_per_minute int check (requests_per_minute > 0);
      alter table tokens add column concurrency int check (concurrency > 0);
    `,
  },
  {
    id: 8,
    name: "a model's last bench",
    // A measurement beside the model, not part of it (SPEC §5): outside \`doc\`, so storing one does
    // not change the version edits compare, and a declaration synced from the file keeps it.
    sql: "alter table models add column bench jsonb check (bench is null or jsonb_typeof(bench) = 'object');",
  },
  {
    id: 9,
    name: "autoscaling: each process's demand, and the wanted replicas the leader holds",
    sql: `
      -- SPEC §9.1: one row per llmgw serve process, replaced once a second while it has demand.
      -- models: {name: requests in flight + queued}; replicas: {id: requests in flight}; only
      -- what is not zero. A row older than 3 s counts as 0 (the reader filters on at).
      create table demand (
        process  text primary key,
        at       timestamptz not null,
        models   jsonb not null check (jsonb_typeof(models) = 'object'),
        replicas jsonb not null check (jsonb_typeof(replicas) = 'object')
      );
      -- SPEC §9.3: what the leader's window holds per autoscaled model, written when it changes,
      -- so every process shows it and a new leader resumes the window. seq moves on every write:
      -- a process reads only the rows written since it last looked.
      create sequence autoscale_seq;
      create table autoscale (
        model      text primary key,
        wanted     int not null check (wanted >= 0),
        hold_until timestamptz,
        seq        bigint not null
      );
    `,
  },
  {
    id: 10,
    name: "pulls from the Hugging Face Hub into the mirror",
    // SPEC §10.4: a pull is stored so it continues after a restart. `pull_key` names the files it
    // writes (commit, destination, paths): one unfinished pull per key, so the same files asked
    // twice are one pull, in every process. `runner` and `lease_until` say which process downloads
    // it: a lease that runs out (its process died) lets another take it over.
    sql: `
      create table mirror_pulls (
        id          text primary key,
        pull_key    text not null,
        model       text not null,
        version     text not null,
        state       text not null check (state in ('queued', 'downloading', 'complete', 'failed', 'cancelled')),
        runner      text,
        lease_until timestamptz,
        created_at  timestamptz not null default now(),
        doc         jsonb not null
      );
      create unique index mirror_pulls_unfinished on mirror_pulls (pull_key)
        where state in ('queued', 'downloading');
      create index mirror_pulls_state on mirror_pulls (state, created_at);
    `,
  },
  // --- rollout (issue 38) ---
  {
    id: 11,
    name: "revisions",
    // SPEC §11.1: models and replicas stored before revisions run revision 1. The docs read the
    // same without it (absent is 1); written out so that a query over revisions needs no default.
    sql: `
      update models set doc = doc || '{"revision": 1}'::jsonb where not doc ? 'revision';
      update replicas set doc = doc || '{"revision": 1}'::jsonb where not doc ? 'revision';
    `,
  },
  // --- usage2 (issue 39) ---
  {
    id: 12,
    name: "usage counted by hour, model, client token and owner",
    // SPEC §12.1: every process adds its last second's counts (upsert-add), so processes sum here.
    // token is the client token's name, '-' for none; model '-' when the request named none known.
    sql: `
      create table usage_hours (
        hour              timestamptz not null,
        model             text not null,
        token             text not null,
        owner             text not null,
        requests          bigint not null default 0,
        refused           bigint not null default 0,
        failed            bigint not null default 0,
        prompt_tokens     bigint not null default 0,
        cached_tokens     bigint not null default 0,
        completion_tokens bigint not null default 0,
        primary key (hour, model, token, owner)
      );
      create index usage_hours_token on usage_hours (token, hour);
    `,
  },
  // ── house (issue 40): migration 13 ──
  {
    id: 13,
    name: "each process's last minutes of model.traffic",
    // SPEC §7.7: a page draws the minutes before it opened, summed over the processes sharing the
    // database. at is the Unix second; a process's write deletes what is older than the window.
    sql: `
      create table traffic (
        process text not null,
        model   text not null,
        at      bigint not null,
        figures jsonb not null check (jsonb_typeof(figures) = 'object'),
        primary key (model, at, process)
      );
      create index traffic_at on traffic (at);
    `,
  },
  // ── budgets (issue 39): migration 14 ──
  {
    id: 14,
    name: "client tokens' budgets a day, and what each day's budget has given out",
    // SPEC §12.3. token_budgets is one row per token name and UTC day: `used`, the tokens the
    // engines reported for requests settled so far; `leased`, what processes hold to admit
    // requests from (reservations in flight and what is left of a lease). A lease is taken with
    // the row locked, only while used + leased stays within the day's budget.
    sql: `
      alter table tokens add column tokens_per_day bigint check (tokens_per_day >= 1);
      create table token_budgets (
        token  text not null,
        day    date not null,
        used   bigint not null default 0 check (used >= 0),
        leased bigint not null default 0 check (leased >= 0),
        primary key (token, day)
      );
    `,
  },
  // ── usage3 (issue 39): migration 15 ──
  {
    id: 15,
    name: "replica-hours by hour, model and owner; usage counts by day",
    // SPEC §12.1: the hours each model's replicas were ready, and those hours × what they held.
    // Only the scheduler's leader counts them (usage/replicaClock.ts): it adds the span since
    // usage_replica_clock's instant, which it moves forward in the same transaction, under a row
    // lock, so two processes that both believe they lead never count a span twice.
    sql: `
      create table usage_replica_hours (
        hour            timestamptz not null,
        model           text not null,
        owner           text not null,
        replica_hours   double precision not null default 0,
        memory_gb_hours double precision not null default 0,
        core_hours      double precision not null default 0,
        gpu_hours       double precision not null default 0,
        primary key (hour, model, owner)
      );
      create table usage_replica_clock (
        id         int primary key check (id = 1),
        counted_at timestamptz not null
      );
      -- SPEC §12.2: usage_hours summed by UTC day as they are added (the same statement), so a
      -- reading of months by day reads one row per day and key, not every hour.
      create table usage_days (
        day               timestamptz not null,
        model             text not null,
        token             text not null,
        owner             text not null,
        requests          bigint not null default 0,
        refused           bigint not null default 0,
        failed            bigint not null default 0,
        prompt_tokens     bigint not null default 0,
        cached_tokens     bigint not null default 0,
        completion_tokens bigint not null default 0,
        primary key (day, model, token, owner)
      );
    `,
  },
  // ── rollout4 (issue 38): migration 16 ──
  {
    id: 16,
    name: "each process's requests per revision during a rollout",
    // SPEC §11.4: the error ratio is judged over every process within a second. revisions:
    // {"model<TAB>to<TAB>revision": {sent, failed}} (jsonb holds no NUL), what this process's
    // gateway counted since the rollout to \`to\` began, written with its demand row once a second
    // while a rollout runs.
    sql: "alter table demand add column revisions jsonb not null default '{}'::jsonb check (jsonb_typeof(revisions) = 'object');",
  },
  // ── usage4 (issue 39): migration 17 ──
  {
    id: 17,
    name: "usage days in order of day and client token",
    // SPEC §12.2: a reading by token and day sums each (day, token) as its rows go by, in this
    // order (repos/usage.ts); byte order ("C") is the order the reading's rows are sent in.
    sql: `create index usage_days_token on usage_days (day, token collate "C");`,
  },
  // ── usage4 (issue 39): migration 18 ──
  {
    id: 18,
    name: "budget leases per process, each with the last time its process was seen",
    // SPEC §12.3: "a lease not used within a few seconds goes back". A process holds its lease on a
    // token's day in a row of its own and touches it every second (TokenBudgets' sync); a row not
    // touched for LEASE_EXPIRES_MS no longer counts against the budget (its process was killed, or
    // lost the database that long), and its process, if it comes back, finds it forfeited. This
    // replaces token_budgets.leased, which a process killed kept out of the budget all day.
    sql: `
      create table budget_leases (
        token   text not null,
        day     date not null,
        process text not null,
        leased  bigint not null check (leased >= 0),
        seen_at timestamptz not null,
        primary key (token, day, process)
      );
      create index budget_leases_process on budget_leases (process);
      alter table token_budgets drop column leased;
    `,
  },
];

/** Every table the migrations create, for `reset()`. */
export const TABLES = [
  "wakes",
  "models",
  "model_names",
  "nodes",
  "replicas",
  "quotas",
  "classes",
  "audit",
  "events",
  "mirror_versions",
  "tokens",
  "sessions",
  "agent_nodes",
  "demand",
  "autoscale",
  "mirror_pulls",
  "usage_hours",
  "traffic",
  "token_budgets",
  "budget_leases",
  "usage_replica_hours",
  "usage_replica_clock",
  "usage_days",
] as const;

/**
 * Applies the migrations not yet recorded, all in one transaction. The advisory lock comes first so
 * that processes starting together against one PostgreSQL queue up here: the second one then finds
 * the work done instead of racing on CREATE TABLE. On PGlite there is nobody to race; same SQL.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [LOCK.migrations]);
    await tx.exec(`
      create table if not exists schema_migrations (
        id         int primary key,
        name       text not null,
        applied_at timestamptz not null default now()
      )`);
    const done = new Set(
      (await tx.query<{ id: number }>("select id from schema_migrations")).map((row) => row.id),
    );
    const known = new Set(migrations.map((m) => m.id));
    const unknown = [...done].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new Error(
        `the database has migrations this llmgw does not know (${unknown.join(", ")}): it was written by a newer version`,
      );
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.exec(m.sql);
      await tx.query("insert into schema_migrations (id, name) values ($1, $2)", [m.id, m.name]);
      applied.push(m.id);
    }
    return applied;
  });
}
