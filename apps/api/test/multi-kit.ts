import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freshDatabase } from "@llmgw/store/testing";

export { freshDatabase };

import { afterAll, beforeAll } from "vitest";
import { bearer, SECRETS } from "./security-kit";
import type { EventStream } from "./sse";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** SIGKILL (a crash), or SIGTERM (a clean stop); resolves once it has exited. */
  stop(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
}

/**
 * The real `llmgw serve` as a process, on a port the OS picks; resolves with its URL once it says
 * it is ready. `databaseUrl` points it at PostgreSQL; the developer's LLMGW_* never leak in.
 */
export async function spawnServe(options: {
  dataDir: string;
  config: string;
  databaseUrl?: string | null;
  readyMs?: number;
  /** More of its environment (LLMGW_SCHEDULER=off, say). */
  env?: Record<string, string>;
}): Promise<ServeProcess> {
  const env = { ...process.env };
  for (const key of ["LLMGW_CONFIG", "LLMGW_LISTEN", "LLMGW_DATA_DIR", "DATABASE_URL"]) delete env[key];
  Object.assign(env, options.env);
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const args = ["--config", options.config, "--data-dir", options.dataDir, "--listen", "127.0.0.1:0"];
  const child = spawn(process.execPath, ["scripts/llmgw.mjs", "serve", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const readyMs = options.readyMs ?? 60_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`llmgw serve was not ready in ${readyMs} ms:\n${out}`)),
      readyMs,
    );
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /llmgw ready on (http:\/\/\S+)/.exec(out);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`llmgw serve exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Two `llmgw serve` processes on a fresh PostgreSQL database for a describe block: started before
 * its tests, one after the other (both migrate and seed; the second finds it done), and stopped
 * with their streams and the database after. Agents beat once in these tests: a long heartbeat
 * interval keeps liveness from marking their nodes down. `yaml`: more of their llmgw.yaml.
 */
export function useTwoServers(options: { yaml?: string } = {}): {
  servers: ServeProcess[];
  streams: EventStream[];
  database: { url(): string };
} {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let root = "";
  const servers: ServeProcess[] = [];
  const streams: EventStream[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
    root = await mkdtemp(join(tmpdir(), "llmgw-multi-"));
    const config = join(root, "llmgw.yaml");
    await writeFile(config, `heartbeatSeconds: 3600\n${options.yaml ?? ""}`);
    for (const name of ["a", "b"]) {
      servers.push(await spawnServe({ dataDir: join(root, name), config, databaseUrl: database.url }));
    }
  }, 120_000);
  afterAll(async () => {
    for (const stream of streams) await stream.close();
    for (const server of servers) await server.stop();
    await database?.drop();
    if (root) await rm(root, { recursive: true, force: true });
  });
  return {
    servers,
    streams,
    database: {
      url() {
        if (!database) throw new Error("the test database is not created yet");
        return database.url;
      },
    },
  };
}

/** Polls `probe` until it gives a value, or fails naming `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | null | undefined>,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One JSON request to a server as the holder of `secret`. */
export const send = (url: string, secret: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: { ...bearer(secret), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A client token with `tokensPerDay`, created by the admin at `url`; its secret. */
export async function budgetedToken(url: string, name: string, tokensPerDay: number): Promise<string> {
  const created = await send(url, SECRETS.admin, "POST", "/api/v1/tokens", {
    name,
    role: "client",
    tokensPerDay,
  });
  if (created.status !== 201) throw new Error(`token ${name}: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { token: string }).token;
}
