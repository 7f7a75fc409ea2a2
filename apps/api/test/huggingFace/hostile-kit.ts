import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pull } from "@llmgw/domain";
import { afterAll, beforeAll, expect } from "vitest";
import { ggufFileAt, type HostileCase, type StandInFile, StandInHub } from "../kit";
import { type ServeProcess, spawnServe } from "../multi-kit";

// What the hostile Hub suites share: a stand-in Hub, a real `llmgw serve` process pointed at it
// (started again after a kill -9 on the same data), pulls and dry runs over HTTP, whether it
// still answers, and its memory from /proc.

/** The short deadlines the suites test: `huggingface.idleSeconds`, and `timeoutSeconds` where said. */
export const DEADLINE_S = 2;
/** What a deadline may run over its setting. */
export const SLACK_MS = 5000;

export interface HostileServer {
  readonly hub: StandInHub;
  readonly root: string;
  readonly server: ServeProcess;
  /** kill -9 of the server, and a new one on the same data with this `huggingface.timeoutSeconds`. */
  restart(timeoutSeconds: number): Promise<ServeProcess>;
  /** A path in the server's mirror. */
  mirror(...parts: string[]): string;
  /** A repo of one small GGUF file (its header real), under a fresh name. */
  ggufRepo(): Promise<{ repo: string; model: string; file: StandInFile }>;
  /** A number no other repo of the suite has. */
  next(): number;
  /** Runs `work` with `hostileCase` answering for the Hub, then checks the server still answers. */
  withCase<T>(hostileCase: HostileCase | null, what: string, work: () => Promise<T>): Promise<T>;
}

/**
 * A suite's Hub and server. It starts with `timeoutSeconds` 60 (a loaded machine must not turn a
 * bound into a timeout); a restart picks the deadline the tests after it need.
 */
export function useHostileServer(): HostileServer {
  let hub: StandInHub | null = null;
  let root = "";
  let server: ServeProcess | null = null;
  let sequence = 0;
  const servers: ServeProcess[] = [];
  const started = <T>(value: T | null): T => {
    if (value === null) throw new Error("the hostile suite starts in beforeAll");
    return value;
  };
  async function serve(timeoutSeconds: number): Promise<ServeProcess> {
    const config = join(root, "llmgw.yaml");
    const yaml = `heartbeatSeconds: 3600\nhuggingface:\n  endpoint: ${started(hub).url}\n  timeoutSeconds: ${timeoutSeconds}\n  idleSeconds: ${DEADLINE_S}\n`;
    await writeFile(config, yaml);
    server = await spawnServe({ dataDir: join(root, "data"), config });
    servers.push(server);
    return server;
  }
  beforeAll(async () => {
    hub = await StandInHub.start();
    root = await mkdtemp(join(tmpdir(), "llmgw-hostile-"));
    await serve(60);
  }, 90_000);
  afterAll(async () => {
    for (const s of servers) await s.stop("SIGKILL");
    await hub?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });
  const self: HostileServer = {
    get hub() {
      return started(hub);
    },
    get root() {
      return root;
    },
    get server() {
      return started(server);
    },
    async restart(timeoutSeconds) {
      await started(server).stop("SIGKILL");
      return serve(timeoutSeconds);
    },
    mirror: (...parts) => join(root, "data", "mirror", ...parts),
    next: () => ++sequence,
    async ggufRepo() {
      const n = ++sequence;
      const file = await ggufFileAt(root, `Case${n}-Q4_K_M.gguf`, 4096);
      const repo = `hostile/Case${n}-GGUF`;
      await started(hub).addRepo({ repo, files: [file] });
      return { repo, model: `case${n}-gguf`, file };
    },
    async withCase(hostileCase, what, work) {
      const at = started(hub);
      at.knobs.intercept = hostileCase ? (req) => hostileCase.intercept(req) : null;
      try {
        return await work();
      } finally {
        at.knobs.intercept = null;
        await expectAnswers(started(server), what);
      }
    },
  };
  return self;
}

export interface Answer {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

export async function postPull(server: ServeProcess, body: object, signal?: AbortSignal): Promise<Answer> {
  const res = await fetch(`${server.url}/api/v1/mirror/pulls`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

export async function pullOf(server: ServeProcess, id: string): Promise<Pull> {
  const res = await fetch(`${server.url}/api/v1/mirror/pulls/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Pull;
}

/** The server is up and its store answers, and a pull list comes back. */
export async function expectAnswers(server: ServeProcess, after: string): Promise<void> {
  expect(server.child.exitCode, `exited after ${after}`).toBeNull();
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status, `healthz after ${after}`).toBe(200);
  const pulls = await fetch(`${server.url}/api/v1/mirror/pulls`);
  expect(pulls.status, `pulls after ${after}`).toBe(200);
}

/** A field of /proc/<pid>/status in MB: `VmRSS` now, `VmHWM` the most it ever held. */
export async function memoryMB(server: ServeProcess, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await readFile(`/proc/${server.child.pid}/status`, "utf8");
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no ${field} in /proc/${server.child.pid}/status`);
  return kb / 1024;
}
