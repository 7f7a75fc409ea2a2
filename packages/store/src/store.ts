import { join } from "node:path";
import type { Db, DbKind, Queryable } from "./db";
import { lockKey } from "./locks";
import { migrate, TABLES } from "./migrations";
import { openPglite } from "./pglite";
import { openPostgres } from "./postgres";
import { type AgentNodes, agentNodes } from "./repos/agentNodes";
import { type Audit, audit } from "./repos/audit";
import { type Autoscale, autoscale } from "./repos/autoscale";
import { type Budgets, budgets } from "./repos/budgets";
import { type Classes, classes } from "./repos/classes";
import { type Demand, demand } from "./repos/demand";
import { type Events, events } from "./repos/events";
import { type Mirror, mirror } from "./repos/mirror";
import { type Models, models } from "./repos/models";
import { type Nodes, nodes } from "./repos/nodes";
import { type Pulls, pulls } from "./repos/pulls";
import { type Quotas, quotas } from "./repos/quotas";
import { type Replicas, replicas } from "./repos/replicas";
import { type Sessions, sessions } from "./repos/sessions";
import { SettledDays } from "./repos/settledDays";
import { TokenCache } from "./repos/tokenCache";
import { type StoredToken, type Tokens, tokens } from "./repos/tokens";
import { type TrafficSeconds, traffic } from "./repos/traffic";
import { type Usage, usage } from "./repos/usage";
import { type Wakes, wakes } from "./repos/wakes";

export interface StoreOptions {
  /** PGlite keeps its files in `<dataDir>/db`. Neither option: an in-memory PGlite (tests). */
  dataDir?: string;
  /** A postgres:// URL: use that server instead of PGlite (takes precedence over dataDir). */
  databaseUrl?: string;
}

/** The repositories, bound to the database or to one transaction. */
export interface Repositories {
  readonly models: Models;
  readonly nodes: Nodes;
  readonly replicas: Replicas;
  readonly quotas: Quotas;
  readonly classes: Classes;
  readonly audit: Audit;
  readonly events: Events;
  readonly mirror: Mirror;
  readonly tokens: Tokens;
  readonly sessions: Sessions;
  readonly wakes: Wakes;
  readonly agentNodes: AgentNodes;
  readonly pulls: Pulls;
  readonly demand: Demand;
  readonly autoscale: Autoscale;
  readonly usage: Usage;
  readonly traffic: TrafficSeconds;
  readonly budgets: Budgets;
}

export interface StoreTx extends Repositories {
  /** The connection these repositories use, for a query no repository has. */
  readonly sql: Queryable;
  /**
   * Groups writes: every repository call on `tx` commits together or not at all (a savepoint when
   * already inside a transaction). Use only `tx` inside `fn`; see Queryable.transaction.
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Waits for the lock on `key` and holds it until this transaction ends, in every process sharing
   * the database: transactions that lock the same key before reading what they check run one after
   * another (a quota's admission, say). Take it before writing anything: a transaction holding a
   * row while it waits for the lock can deadlock with one holding the lock that wants that row.
   */
  lock(key: string): Promise<void>;
}

/** The store outside any transaction: a lock there would end with its own statement, so there is none. */
export interface Store extends Omit<StoreTx, "lock"> {
  readonly kind: DbKind;
  readonly db: Db;
  /** Reads in one read-only transaction that sees one moment (see Db.readTransaction). */
  read<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Empties every table, keeping the schema (tests). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Caches shared by the store and its transactions; a transaction writes through, never reads from them. */
type Caches = { tokens: TokenCache<StoredToken>; settledDays: SettledDays };

function bind(sql: Queryable, caches: Caches, inTransaction: boolean): StoreTx {
  return {
    sql,
    models: models(sql),
    nodes: nodes(sql),
    replicas: replicas(sql),
    quotas: quotas(sql),
    classes: classes(sql),
    audit: audit(sql),
    events: events(sql),
    mirror: mirror(sql),
    tokens: tokens(sql, { reads: inTransaction ? null : caches.tokens, writes: caches.tokens }),
    sessions: sessions(sql),
    wakes: wakes(sql),
    agentNodes: agentNodes(sql),
    pulls: pulls(sql),
    demand: demand(sql),
    autoscale: autoscale(sql),
    usage: usage(sql, inTransaction ? null : caches.settledDays),
    traffic: traffic(sql),
    budgets: budgets(sql),
    transaction: (fn) => sql.transaction((tx) => fn(bind(tx, caches, true))),
    lock: (key) => lockKey(sql, key),
  };
}

/** Opens the database the options name, brings its schema up to date, and returns the store. */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  return storeOn(await openDb(options));
}

export function openDb({ dataDir, databaseUrl }: StoreOptions): Promise<Db> {
  if (databaseUrl !== undefined && databaseUrl !== "") return openPostgres(databaseUrl);
  return openPglite(dataDir === undefined ? undefined : join(dataDir, "db"));
}

/** Migrates `db` and wraps it; closes it when migrating fails. */
export async function storeOn(db: Db): Promise<Store> {
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const caches: Caches = { tokens: new TokenCache<StoredToken>(db), settledDays: new SettledDays() };
  const { lock: _outsideTransaction, ...repositories } = bind(db, caches, false);
  return {
    ...repositories,
    kind: db.kind,
    db,
    read: (fn) => db.readTransaction((tx) => fn(bind(tx, caches, true))),
    async reset() {
      await db.exec(`truncate ${TABLES.join(", ")} restart identity`);
      caches.tokens.forget();
      caches.settledDays.forget();
    },
    close: () => db.close(),
  };
}
