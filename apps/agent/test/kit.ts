import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { heartbeatSchema } from "@llmgw/domain";
import type { AgentLog, DesiredReplica, ReportedReplica } from "../src/supervisor";

export type RecordedBeat = {
  at: number;
  authorization: string | undefined;
  node: { name: string; freeMemoryGB?: number | null };
  replicas: ReportedReplica[];
};

/** A heartbeat the stand-in refused as the server would, and the fields it named. */
export type RefusedBeat = { status: 400 | 415; body: string; fields: Record<string, string> };

/**
 * A stand-in control plane: checks every heartbeat against the domain's schema as the server does
 * (strict, 415 for another media type, 400 naming the fields), records those it takes in `beats`
 * and the others in `invalid`, and answers with the desired replicas the test sets. While `down`,
 * it drops connections, as a server that is not there would.
 */
export async function fakeControlPlane(intervalSeconds = 0.2) {
  const beats: RecordedBeat[] = [];
  const invalid: RefusedBeat[] = [];
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
      const refusal = refusalOf(req.headers["content-type"], body);
      if (refusal) {
        invalid.push(refusal);
        res.writeHead(refusal.status, { "content-type": "application/json" });
        res.end(JSON.stringify(errorBody(refusal)));
        return;
      }
      const beat = JSON.parse(body) as Omit<RecordedBeat, "at" | "authorization">;
      beats.push({ ...beat, at: Date.now(), authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ intervalSeconds, replicas: state.desired }));
    });
  });
  return {
    ...(await listening(server)),
    beats,
    invalid,
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
  };
}

/** Why the server would refuse this heartbeat, or null when it would take it. */
function refusalOf(contentType: string | undefined, body: string): RefusedBeat | null {
  if (!/^application\/json\b/.test(contentType ?? ""))
    return { status: 415, body, fields: { body: "expected application/json" } };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { status: 400, body, fields: { body: "not JSON" } };
  }
  const parsed = heartbeatSchema.safeParse(json);
  return parsed.success ? null : { status: 400, body, fields: fieldsOf(parsed.error) };
}

/** The issues by dotted path, a stray key named as the server names it (apps/api errors.ts). */
type SchemaError = NonNullable<ReturnType<typeof heartbeatSchema.safeParse>["error"]>;

function fieldsOf(error: SchemaError): Record<string, string> {
  const fields = new Map<string, string>();
  for (const issue of error.issues) {
    const paths =
      issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const path of paths) {
      const key = path.map(String).join(".") || "body";
      if (!fields.has(key))
        fields.set(key, issue.code === "unrecognized_keys" ? "not a field of this request" : issue.message);
    }
  }
  return Object.fromEntries(fields);
}

/** The server's one error shape, with its messages (apps/api validate.ts). */
const errorBody = ({ status, fields }: RefusedBeat) => ({
  error: {
    code: "bad_request",
    message:
      status === 415
        ? "send the body as JSON (Content-Type: application/json)"
        : `the request body is not valid: ${Object.keys(fields).join(", ")}`,
    fields,
  },
});

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
    revision: 1,
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

export type MirrorRequest = { path: string; range: string | undefined; authorization: string | undefined };

/**
 * A stand-in mirror: serves `files` (URL path → bytes) with Range support, and records every
 * request. `cut` cuts the next responses after so many bytes, as a dropped connection would;
 * `paceMs` sends 64 KB at a time with a pause between, for progress to be seen.
 */
export async function fakeMirror() {
  const files = new Map<string, Buffer>();
  const requests: MirrorRequest[] = [];
  const state = { cut: [] as number[], paceMs: 0 };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "";
    requests.push({ path, range: req.headers.range, authorization: req.headers.authorization });
    const body = files.get(path);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0);
    if (from >= body.length && from > 0) {
      res.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(from);
    res.writeHead(from > 0 ? 206 : 200, {
      "content-length": String(part.length),
      ...(from > 0 ? { "content-range": `bytes ${from}-${body.length - 1}/${body.length}` } : {}),
    });
    const cutAt = state.cut.shift();
    if (cutAt !== undefined) {
      // Written, flushed, then the connection dropped mid-body.
      res.write(part.subarray(0, cutAt), () => req.socket.destroy());
      return;
    }
    void (async () => {
      for (let at = 0; at < part.length; at += 64 * 1024) {
        if (!res.write(part.subarray(at, at + 64 * 1024))) await new Promise((r) => res.once("drain", r));
        if (state.paceMs > 0) await new Promise((r) => setTimeout(r, state.paceMs));
      }
      res.end();
    })();
  });
  return {
    ...(await listening(server)),
    files,
    requests,
    state,
    /** GETs of one file so far. */
    fetchesOf: (path: string) => requests.filter((r) => r.path === path).length,
  };
}

/** Listens on a loopback port: the server's URL, and a close that drops open connections too. */
async function listening(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
