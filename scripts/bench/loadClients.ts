// The load bench's clients, in their own process: CLIENTS closed-loop clients over keep-alive
// connections, each sending its next request as soon as the last is answered, for SECONDS; each
// request's kind drawn from a mix of catalogue reads and edits, creates and deletes, and heartbeats
// from NODES simulated agents; STREAMS event streams open throughout. Afterwards it checks what
// the server acknowledged against what it holds and what the streams heard.
//   loadClients URL CLIENTS SECONDS NODES STREAMS MODELS
// Tells its parent when the nodes are registered and the streams open; {cmd: "go"} runs the load
// and answers with the figures (see `Report`).
import { Agent, request } from "node:http";
import { inconsistencies } from "./loadCheck";
import { openStream, type Stream } from "./loadStreams";
import { type Answer, type Phases, Tallies } from "./loadTally";

const [
  url = "",
  clientsText = "200",
  secondsText = "30",
  nodesText = "50",
  streamsText = "20",
  modelsText = "200",
] = process.argv.slice(2);
const base = new URL(url);
const clients = Number(clientsText);
const nodeCount = Number(nodesText);
const seeded = Number(modelsText);
/** Patches go to these few models, so that clients holding an old ETag meet 412s. */
const HOT = Math.min(20, seeded);
const TIMEOUT_MS = 10_000;
const agent = new Agent({ keepAlive: true, maxSockets: clients, maxFreeSockets: clients });

// The mix, by weight: reads 55, writes 45. A heartbeat picks the node that beat longest ago.
const MIX = {
  "GET /models": 5,
  "GET /models/:name": 25,
  "GET /headroom": 10,
  "GET /fleet/nodes": 10,
  "GET /capacity": 5,
  "PATCH /models/:name": 15,
  "POST /models": 6,
  "DELETE /models/:name": 6,
  "POST /agents/heartbeat": 18,
} as const;
type Kind = keyof typeof MIX;
const KINDS = Object.keys(MIX) as Kind[];
const TOTAL_WEIGHT = KINDS.reduce((sum, k) => sum + MIX[k], 0);
/** The statuses that are right for each request; anything else (and any network error) is an error. */
const RIGHT: Record<Kind, readonly number[]> = {
  "GET /models": [200],
  "GET /models/:name": [200],
  "GET /headroom": [200],
  "GET /fleet/nodes": [200],
  "GET /capacity": [200],
  "PATCH /models/:name": [200, 412],
  "POST /models": [201],
  "DELETE /models/:name": [204],
  "POST /agents/heartbeat": [200],
};

const tallies = new Tallies(KINDS, RIGHT);

/** One request; rejects on a network error or after TIMEOUT_MS. Records it under `kind`. */
function call(
  kind: Kind | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const start = performance.now();
  return new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const phases: Phases = { socket: -1, written: -1, headers: -1 };
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method,
        agent,
        headers: payload === undefined ? headers : { "content-type": "application/json", ...headers },
      },
      (res) => {
        phases.headers = performance.now() - start;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          clearTimeout(timer);
          const answer = { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") };
          if (kind) tallies.record(kind, performance.now() - start, answer, undefined, phases);
          resolve(answer);
        });
        res.on("error", fail);
      },
    );
    req.once("socket", () => {
      phases.socket = performance.now() - start;
    });
    req.once("finish", () => {
      phases.written = performance.now() - start;
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    function fail(err: Error) {
      clearTimeout(timer);
      if (kind)
        tallies.record(kind, performance.now() - start, null, `${method} ${path}: ${err.message}`, phases);
      reject(err);
    }
    req.on("error", fail);
    req.end(payload);
  });
}

/** An answer's JSON body; one that does not parse is an error of its kind (null). */
function json<T>(kind: Kind, answer: Answer): T | null {
  try {
    return JSON.parse(answer.body) as T;
  } catch {
    tallies.wrong(kind, `${answer.status} with a body that is not JSON: ${answer.body.slice(0, 100)}`);
    return null;
  }
}

// What the server acknowledged, to check against what it holds afterwards.
const created = new Set<string>();
const deleted = new Set<string>();
/** Requests whose outcome is unknown (an error answered them): either outcome is consistent. */
const unsure = new Set<string>();
const deletable: string[] = [];
const patched = new Map<string, { acked: number; unsure: number }>();
let conflicts = 0;
let gaveUp = 0;

type SimNode = { name: string; replicas: { id: string; model: string; profile: string; state: "ready" }[] };
const idleNodes: SimNode[] = Array.from({ length: nodeCount }, (_, n) => ({
  name: `load-node-${n}`,
  replicas: [],
}));

/** A beat reporting what the node was last told to run, all started: a fake agent's loop. */
async function beat(node: SimNode, kind: Kind | null): Promise<void> {
  const facts = { name: node.name, memoryGB: 512, cpuCount: 128, engines: ["llamacpp"] };
  const answer = await call(kind, "POST", "/api/v1/agents/heartbeat", {
    node: facts,
    replicas: node.replicas,
  });
  if (answer.status !== 200) return;
  const reply = json<{ replicas: { id: string; model: string; profile: string }[] }>(
    "POST /agents/heartbeat",
    answer,
  );
  if (!reply) return;
  node.replicas = reply.replicas.map((r) => ({
    id: r.id,
    model: r.model,
    profile: r.profile,
    state: "ready",
  }));
}

const modelName = () => `model-${Math.floor(Math.random() * seeded)}`;

async function readModel(name: string, versions: Map<string, number>): Promise<void> {
  const answer = await call("GET /models/:name", "GET", `/api/v1/models/${name}`);
  const model = answer.status === 200 ? json<{ version: number }>("GET /models/:name", answer) : null;
  if (model) versions.set(name, model.version);
}

/** A dashboard's edit: with the ETag it holds; on 412 it takes the current version and tries again. */
async function patch(client: number, n: number, versions: Map<string, number>): Promise<void> {
  const name = `model-${Math.floor(Math.random() * HOT)}`;
  if (!versions.has(name)) await readModel(name, versions);
  const count = patched.get(name) ?? { acked: 0, unsure: 0 };
  patched.set(name, count);
  for (let attempt = 0; attempt < 5; attempt++) {
    const body = {
      description: `load c${client} #${n}.${attempt}`,
      ...(n % 5 === 0 ? { replicas: 1 + (n % 2) } : {}),
    };
    let answer: Answer;
    try {
      answer = await call("PATCH /models/:name", "PATCH", `/api/v1/models/${name}`, body, {
        "if-match": `"${versions.get(name) ?? 1}"`,
      });
    } catch {
      count.unsure++;
      return;
    }
    if (answer.status === 200) {
      count.acked++;
      const model = json<{ version: number }>("PATCH /models/:name", answer);
      if (model) versions.set(name, model.version);
      return;
    }
    if (answer.status !== 412) {
      if (answer.status >= 500) count.unsure++;
      return;
    }
    if (tallies.measuring) conflicts++;
    const current = json<{ current?: { version?: unknown } }>("PATCH /models/:name", answer)?.current
      ?.version;
    if (typeof current !== "number")
      return tallies.wrong("PATCH /models/:name", "412 without the current model's version");
    versions.set(name, current);
  }
  if (tallies.measuring) gaveUp++;
}

/** A small model, as the wizard would add one: the scheduler places its replica. */
async function create(client: number, n: number): Promise<void> {
  const name = `made-${client}-${n}`;
  const body = {
    name,
    source: `http://127.0.0.1/mirror/${name}/v1/${name}.gguf`,
    contextLength: 4096,
    owner: `team-${client % 10}`,
    scaling: { min: 1, max: 1 },
    profiles: [{ name: "cpu", engine: "llamacpp", minMemoryGB: 2, cpuCores: 1 }],
  };
  const answer = await call("POST /models", "POST", "/api/v1/models", body).catch(() => null);
  if (answer?.status === 201) {
    created.add(name);
    deletable.push(name);
  } else if (!answer || answer.status >= 500) unsure.add(name);
}

async function remove(name: string): Promise<void> {
  const answer = await call("DELETE /models/:name", "DELETE", `/api/v1/models/${name}`).catch(() => null);
  if (answer?.status === 204) deleted.add(name);
  else if (!answer || answer.status >= 500) unsure.add(name);
}

function draw(): Kind {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const kind of KINDS) {
    r -= MIX[kind];
    if (r < 0) return kind;
  }
  return "GET /models/:name";
}

async function runClient(client: number, until: number): Promise<void> {
  const versions = new Map<string, number>();
  for (let n = 0; performance.now() < until; n++) {
    const kind = draw();
    const ignore = () => {};
    if (kind === "PATCH /models/:name") await patch(client, n, versions).catch(ignore);
    else if (kind === "POST /models") await create(client, n);
    else if (kind === "DELETE /models/:name") {
      // The oldest acknowledged create, so its replica has usually been placed; none yet: create one.
      const name = deletable.shift();
      await (name ? remove(name) : create(client, n));
    } else if (kind === "POST /agents/heartbeat") {
      const node = idleNodes.shift();
      if (!node) await call("GET /fleet/nodes", "GET", "/api/v1/fleet/nodes").catch(ignore);
      else
        await beat(node, kind)
          .catch(ignore)
          .finally(() => idleNodes.push(node));
    } else if (kind === "GET /models/:name") await readModel(modelName(), versions).catch(ignore);
    else await call(kind, "GET", `/api/v1${kind.slice(4)}`).catch(ignore);
  }
}

// Streams first, so they hear everything from the nodes' registration on.
const streams: { stream: Stream; close: () => void }[] = [];
for (let i = 0; i < Number(streamsText); i++) streams.push(await openStream(base));
// The fleet registers, then beats a few rounds so the scheduler places the catalogue and the
// simulated agents start what they are told.
for (let round = 0; round < 6; round++) {
  await Promise.all(idleNodes.map((node) => beat(node, null)));
  await new Promise((resolve) => setTimeout(resolve, 500));
}
// Every client's connection opened before the run: Node (libuv 1.46, as strace shows) accepts one
// connection per event-loop turn, so connections opened while the server is busy wait seconds to
// be accepted — a ramp-up artefact a bench of steady load should not measure.
await Promise.all(Array.from({ length: clients }, () => call(null, "GET", "/api/v1/capacity")));
process.send?.({ nodes: nodeCount, streams: streams.length });
await new Promise<void>((resolve) => process.once("message", () => resolve()));

const started = tallies.start();
await Promise.all(
  Array.from({ length: clients }, (_, c) => runClient(c, started + Number(secondsText) * 1000)),
);
const figures = tallies.stop();
// The last announcements reach the streams; then what the server holds is checked.
await new Promise((resolve) => setTimeout(resolve, 1500));
for (const s of streams) s.close();

const listed = await call(null, "GET", "/api/v1/models");
const held = new Map(
  (JSON.parse(listed.body) as { name: string; version: number }[]).map((m) => [m.name, m.version]),
);
const { problems, events } = inconsistencies(
  held,
  { created, deleted, unsure, patched },
  streams.map((s) => s.stream),
);

process.send?.({
  ...figures,
  conflicts,
  gaveUp,
  created: created.size,
  deleted: deleted.size,
  unsure: unsure.size,
  events,
  streams: streams.length,
  problems,
});
agent.destroy();
process.disconnect?.();
