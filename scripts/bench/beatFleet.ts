// Simulated agents for the heartbeat benches: NODES nodes, each running PER_NODE replicas of its
// own (as an agent reports what it runs) and, like the real agent, also running what the server's
// reply asks of it (the scheduler's placements), reported as ready from its next beat on. So once
// the scheduler has placed what it wants, a beat with nothing moved is unchanged for the server.
// A changing beat moves the node's free memory by 2 GB (past SIGNIFICANT_GB) and, on every tenth
// node, one of its replicas between ready and starting (an engine restarting).
import { Agent, request } from "node:http";

export type FleetShape = {
  /** Node names are `${prefix}-${n}`: two fleets on one server do not meet. */
  prefix: string;
  nodes: number;
  perNode: number;
  /** The catalogue is model-0 … model-(models-1); node n runs models n·perNode … on. */
  models: number;
};

type Reported = {
  id: string;
  model: string;
  profile?: string;
  state: "ready" | "starting";
  memoryGB?: number;
  cpuCores?: number;
};

type SimNode = {
  name: string;
  own: Reported[];
  /** What the server placed here, by id: run (reported ready) from the next beat on. */
  placed: Map<string, Reported>;
  freeMemoryGB: number;
  /** The body last sent: a beat that sends the same bytes changed nothing on this side. */
  last: string;
};

type Reply = { replicas: { id: string; model: string; profile: string }[] };

export type Beat = { ms: number; same: boolean };

export class BeatFleet {
  readonly #target: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #nodes: SimNode[];

  constructor(url: string, shape: FleetShape) {
    this.#target = new URL("/api/v1/agents/heartbeat", url);
    this.#nodes = Array.from({ length: shape.nodes }, (_, n) => ({
      name: `${shape.prefix}-${n}`,
      own: Array.from({ length: shape.perNode }, (_, j) => ({
        id: `${shape.prefix}-${n}-${j}`,
        model: `model-${(n * shape.perNode + j) % shape.models}`,
        state: "ready" as const,
        memoryGB: 1,
        cpuCores: 1,
      })),
      placed: new Map(),
      freeMemoryGB: 400,
      last: "",
    }));
  }

  get size(): number {
    return this.#nodes.length;
  }

  /** Node n's next beat; `change` moves its free memory (and on every tenth node a replica's state). */
  async beat(n: number, change = false): Promise<Beat> {
    const node = this.#nodes[n];
    if (!node) throw new Error(`no node ${n}`);
    if (change) {
      node.freeMemoryGB = node.freeMemoryGB === 400 ? 398 : 400;
      const flipped = n % 10 === 0 ? node.own[0] : undefined;
      if (flipped) flipped.state = flipped.state === "ready" ? "starting" : "ready";
    }
    const body = JSON.stringify({
      node: {
        name: node.name,
        memoryGB: 512,
        cpuCount: 128,
        engines: ["llamacpp"],
        freeMemoryGB: node.freeMemoryGB,
      },
      replicas: [...node.own, ...node.placed.values()],
    });
    const same = body === node.last;
    node.last = body;
    const start = performance.now();
    const reply = await this.#retried(body);
    const ms = performance.now() - start;
    // As the agent does: run what the server asks, stop what it no longer asks.
    const mine = new Set(node.own.map((r) => r.id));
    const placed = new Map<string, Reported>();
    for (const r of reply.replicas) {
      if (mine.has(r.id)) continue;
      placed.set(
        r.id,
        node.placed.get(r.id) ?? { id: r.id, model: r.model, profile: r.profile, state: "ready" },
      );
    }
    node.placed = placed;
    return { ms, same };
  }

  /** Every node in `order` beats once, `concurrency` at a time: the beats' latencies and the wall time. */
  async round(options: { concurrency: number; change?: boolean; order?: readonly number[] }) {
    const order = options.order ?? this.#nodes.map((_, n) => n);
    const beats: Beat[] = [];
    let next = 0;
    const start = performance.now();
    const worker = async () => {
      while (next < order.length) {
        const n = order[next++] ?? 0;
        beats.push(await this.beat(n, options.change));
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    return {
      ms: performance.now() - start,
      latencies: beats.map((b) => b.ms),
      /** Beats whose body differed from the node's last (a placement run, or stopped). */
      moved: beats.filter((b) => !b.same).length,
    };
  }

  close(): void {
    this.#agent.destroy();
  }

  /** A keep-alive socket the server closed just as the beat went out resets: sent again. */
  async #retried(body: string): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#post(body);
      } catch (err) {
        if (attempt >= 3 || (err as { code?: string }).code !== "ECONNRESET") throw err;
      }
    }
  }

  #post(body: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          path: this.#target.pathname,
          method: "POST",
          agent: this.#agent,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            if (res.statusCode !== 200)
              reject(new Error(`heartbeat: ${res.statusCode} ${text.slice(0, 200)}`));
            else resolve(JSON.parse(text));
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }
}
