import { readFile } from "node:fs/promises";
import type { Pull } from "@llmgw/domain";
import { expect } from "vitest";
import type { ServeProcess } from "../multi-kit";

// What the hostile Hub suite asks of a real `llmgw serve` process: pulls and dry runs over HTTP,
// whether it still answers, and its memory from /proc.

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
