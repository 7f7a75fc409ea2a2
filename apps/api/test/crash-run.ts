// The crash drill behind `pnpm crash` and crash.test.ts: the real `llmgw serve` is killed with
// SIGKILL in the middle of a write load and started again, over and over. Every write a client
// saw acknowledged (a 2xx) must be there afterwards, and nothing half-written may be.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelSchema } from "@llmgw/domain";
import { openStore } from "@llmgw/store";
import { heartbeat, modelInput } from "./factories";
import { freshDatabase, type ServeProcess, spawnServe } from "./multi-kit";

export interface CrashOptions {
  kills: number;
  /** A PostgreSQL server URL: the drill runs in a fresh database there instead of PGlite. */
  postgres?: string | null;
  /** Concurrent writers. */
  clients?: number;
  log?: (line: string) => void;
}

export interface CrashReport {
  kills: number;
  acknowledged: { creates: number; patches: number; heartbeats: number };
  /** Acknowledged writes checked after each restart, summed. */
  checks: number;
  /** Writes sent whose answer the kill cut off: each may or may not have landed. */
  unanswered: number;
  startMs: number[];
  problems: string[];
}

/** What one client has written to a model of its own; nobody else writes it. */
type Ledger = {
  created: boolean;
  /** The description sent with each version: the stored one must match whatever version is stored. */
  sent: Map<number, string>;
  /** The highest version answered 2xx (0: creation not acknowledged). */
  acked: number;
  /** Our idea of the stored version; null after an unanswered write (ask the server). */
  known: number | null;
};

export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  const { kills, clients = 4, log = () => {} } = options;
  const root = await mkdtemp(join(tmpdir(), "llmgw-crash-"));
  const database = options.postgres ? await freshDatabase(options.postgres) : null;
  const configFile = join(root, "llmgw.yaml");
  // Agents beat once here: a long interval keeps liveness from rewriting their nodes meanwhile.
  await writeFile(configFile, "heartbeatSeconds: 3600\n");

  const models = new Map<string, Ledger>();
  const nodes = new Set<string>();
  const report: CrashReport = {
    kills: 0,
    acknowledged: { creates: 0, patches: 0, heartbeats: 0 },
    checks: 0,
    unanswered: 0,
    startMs: [],
    problems: [],
  };
  let url = "";
  let server: ServeProcess | null = null;
  let open: Promise<void> = new Promise(() => {});
  let release = () => {};
  let stopping = false;
  const gate = () => {
    open = new Promise((resolve) => {
      release = resolve;
    });
  };
  gate();

  async function start(): Promise<void> {
    const began = performance.now();
    server = await spawnServe({ dataDir: root, config: configFile, databaseUrl: database?.url ?? null });
    url = server.url;
    report.startMs.push(Math.round(performance.now() - began));
  }

  async function kill(): Promise<void> {
    const proc = server;
    server = null;
    gate();
    await proc?.stop("SIGKILL");
  }

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${url}/api/v1${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...(init.headers ?? {}) },
    });

  /** Checks the running server against what was acknowledged; returns how many writes it checked. */
  async function verify(): Promise<void> {
    const listed = (await (await api("/models")).json()) as {
      name: string;
      version: number;
      description: string;
    }[];
    const byName = new Map(listed.map((m) => [m.name, m]));
    for (const [name, ledger] of models) {
      const stored = byName.get(name);
      if (ledger.acked === 0) {
        if (stored && stored.description !== ledger.sent.get(stored.version))
          report.problems.push(`${name}: unacknowledged create stored a description never sent`);
        continue;
      }
      report.checks += 1;
      if (!stored) {
        report.problems.push(`${name}: acknowledged at version ${ledger.acked}, now missing`);
        continue;
      }
      if (stored.version < ledger.acked)
        report.problems.push(`${name}: acknowledged version ${ledger.acked}, stored ${stored.version}`);
      else if (stored.description !== ledger.sent.get(stored.version))
        report.problems.push(
          `${name}: version ${stored.version} holds ${JSON.stringify(stored.description)}`,
        );
    }
    const listedNodes = (await (await api("/fleet/nodes")).json()) as { name: string }[];
    const nodeNames = new Set(listedNodes.map((n) => n.name));
    for (const name of nodes) {
      report.checks += 1;
      if (!nodeNames.has(name)) report.problems.push(`node ${name}: acknowledged heartbeat, node missing`);
    }
  }

  async function client(): Promise<void> {
    const mine: string[] = [];
    while (!stopping) {
      await open;
      if (stopping) return;
      const roll = Math.random();
      try {
        if (roll < 0.15 || mine.length === 0) {
          const input = modelInput({ description: "v1" });
          const ledger: Ledger = { created: false, sent: new Map([[1, "v1"]]), acked: 0, known: null };
          models.set(input.name, ledger);
          mine.push(input.name);
          const res = await api("/models", { method: "POST", body: JSON.stringify(input) });
          if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
          ledger.created = true;
          ledger.acked = 1;
          ledger.known = 1;
          report.acknowledged.creates += 1;
        } else if (roll < 0.8) {
          const name = mine[Math.floor(Math.random() * mine.length)] ?? "";
          const ledger = models.get(name);
          if (!ledger) continue;
          if (ledger.known === null) {
            const res = await api(`/models/${name}`);
            if (res.status === 404) {
              ledger.known = 0;
              continue;
            }
            ledger.known = ((await res.json()) as { version: number }).version;
          }
          if (ledger.known === 0) continue;
          const version = ledger.known;
          const description = `v${version + 1} ${Math.random().toString(36).slice(2, 8)}`;
          ledger.sent.set(version + 1, description);
          ledger.known = null;
          const res = await api(`/models/${name}`, {
            method: "PATCH",
            headers: { "if-match": `"${version}"` },
            body: JSON.stringify({ description }),
          });
          if (res.status !== 200) throw new Error(`patch answered ${res.status}: ${await res.text()}`);
          const body = (await res.json()) as { version: number };
          ledger.known = body.version;
          ledger.acked = Math.max(ledger.acked, body.version);
          report.acknowledged.patches += 1;
        } else {
          const beat = heartbeat();
          const res = await api("/agents/heartbeat", { method: "POST", body: JSON.stringify(beat) });
          if (!res.ok) throw new Error(`heartbeat answered ${res.status}: ${await res.text()}`);
          await res.json();
          nodes.add(beat.node.name);
          report.acknowledged.heartbeats += 1;
        }
      } catch (err) {
        // A refused connection or a reset: the server is down (killed on purpose). Anything else is a finding.
        if (err instanceof TypeError) report.unanswered += 1;
        else report.problems.push(String(err));
        await open;
      }
    }
  }

  const writers: Promise<void>[] = [];
  try {
    await start();
    release();
    for (let i = 0; i < clients; i++) writers.push(client());
    for (let k = 1; k <= kills; k++) {
      const acked = () =>
        report.acknowledged.creates + report.acknowledged.patches + report.acknowledged.heartbeats;
      const before = acked();
      // Kill at a random point once writes are flowing.
      const deadline = Date.now() + 5_000;
      while (acked() < before + 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 800));
      await kill();
      report.kills = k;
      await start();
      await verify();
      log(`kill ${k}/${kills}: ${acked()} writes acknowledged so far, ${report.problems.length} problems`);
      release();
    }
    stopping = true;
    await kill();
    release();
    await Promise.all(writers);
    await deepCheck();
  } finally {
    stopping = true;
    release();
    await kill();
    await database?.drop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
  return report;

  /** With the server down: the rows themselves, through the store. */
  async function deepCheck(): Promise<void> {
    const store = await openStore(database ? { databaseUrl: database.url } : { dataDir: root });
    try {
      const docs = await store.sql.query<{ name: string; version: number; doc: unknown }>(
        "select name, version, doc from models",
      );
      const names = await store.sql.query<{ name: string; model: string }>(
        "select name, model from model_names",
      );
      const audit = await store.sql.query<{ target: string; version: number | null }>(
        "select target, version from audit where action = 'update'",
      );
      const versions = new Map<string, number>();
      for (const row of docs) {
        const parsed = modelSchema.safeParse(row.doc);
        if (!parsed.success) {
          report.problems.push(`${row.name}: stored doc fails the schema: ${parsed.error.message}`);
          continue;
        }
        versions.set(row.name, row.version);
        if (parsed.data.version !== row.version)
          report.problems.push(`${row.name}: doc and column versions differ`);
        for (const held of [row.name, ...parsed.data.aliases]) {
          if (!names.some((n) => n.name === held && n.model === row.name))
            report.problems.push(`${row.name}: no name row for ${held}`);
        }
        // Each version past the first was made by a patch, audited in the same transaction.
        for (let v = 2; v <= row.version; v++) {
          if (!audit.some((a) => a.target === row.name && a.version === v))
            report.problems.push(`${row.name}: version ${v} has no audit entry`);
        }
      }
      for (const entry of audit) {
        const current = versions.get(entry.target);
        if (current !== undefined && entry.version !== null && entry.version > current)
          report.problems.push(`${entry.target}: audit names version ${entry.version}, stored is ${current}`);
      }
      for (const n of names)
        if (!versions.has(n.model)) report.problems.push(`name ${n.name} held by missing model ${n.model}`);
    } finally {
      await store.close();
    }
  }
}
