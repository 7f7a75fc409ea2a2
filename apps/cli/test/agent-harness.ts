import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentLog, DesiredReplica, ReportedReplica } from "../src/agent/supervisor";

export type RecordedBeat = {
  at: number;
  authorization: string | undefined;
  node: { name: string; freeMemoryGB?: number | null };
  replicas: ReportedReplica[];
};

/**
 * A stand-in control plane: records every heartbeat and answers with the desired replicas the
 * test sets. While `down`, it drops connections, as a server that is not there would.
 */
export async function fakeControlPlane(intervalSeconds = 0.2) {
  const beats: RecordedBeat[] = [];
  const state = { desired: [] as DesiredReplica[], down: false, refused: 0 };
  const server: Server = createServer((req, res) => {
    if (state.down) {
      state.refused += 1;
      req.socket.destroy();
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      const beat = JSON.parse(body) as Omit<RecordedBeat, "at" | "authorization">;
      beats.push({ ...beat, at: Date.now(), authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ intervalSeconds, replicas: state.desired }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    beats,
    state,
    /** The first beat from index `from` on that satisfies `test`, waiting for it. */
    async beat(test: (beat: RecordedBeat) => boolean, from = 0, what = "a heartbeat"): Promise<number> {
      let found = -1;
      await until(() => {
        found = beats.findIndex((b, i) => i >= from && test(b));
        return found >= 0;
      }, what);
      return found;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls a condition until it holds, failing with what was awaited when the deadline passes. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function desiredReplica(overrides: Partial<DesiredReplica> = {}): DesiredReplica {
  const id = overrides.id ?? `r-${Math.random().toString(36).slice(2, 8)}`;
  return {
    id,
    model: "tiny-llama",
    profile: "cpu",
    engine: "llamacpp",
    source: "http://mirror.invalid/tiny.gguf",
    args: [],
    memoryGB: 2,
    cpuCores: 1,
    gpus: 0,
    files: [],
    ...overrides,
  };
}

/** A log that keeps its lines, so a test can say what the agent told the operator. */
export function recordingLog(): AgentLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (line) => lines.push(`info ${line}`),
    warn: (line) => lines.push(`warn ${line}`),
  };
}

export function replicaIn(beat: RecordedBeat, id: string): ReportedReplica | undefined {
  return beat.replicas.find((r) => r.id === id);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
