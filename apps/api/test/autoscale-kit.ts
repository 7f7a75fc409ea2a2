import type { Heartbeat, HeartbeatReply } from "@llmgw/domain";
import { type EngineOptions, type Failure, StandInEngine } from "@llmgw/simulation";
import { heartbeat, replicaReport } from "./factories";

// An agent as the autoscaling tests need one: it runs whatever the server's reply asks on its node
// as stand-in engines (ready at once), reports them ready with their endpoints, and stops what the
// reply no longer lists — closing the engine, so a request still on it would fail, as it would on
// a real node. Whether any did is what the draining tests look at.

type Beat = (body: Heartbeat) => Promise<HeartbeatReply>;
type Desired = HeartbeatReply["replicas"][number];

export class TestAgent {
  /** The engines it runs, by replica id. */
  readonly engines = new Map<string, { model: string; engine: StandInEngine }>();
  /** Every engine it ever started, stopped ones included. */
  readonly started: StandInEngine[] = [];
  readonly node: Heartbeat["node"];
  /**
   * How the engines of replicas started from now on fail every inference request (their
   * `failing` knob), by what the reply asks them to run: e.g. a revision that answers 500.
   */
  failing: (replica: Desired) => Failure | null = () => null;
  #release: (() => void)[] = [];
  #holding = false;
  #timer: ReturnType<typeof setInterval> | null = null;
  #beating: Promise<void> | null = null;

  constructor(
    private readonly send: Beat,
    node: Partial<Heartbeat["node"]> = {},
    private readonly engineOptions: EngineOptions = {},
  ) {
    this.node = heartbeat({ node: { memoryGB: 64, cpuCount: 32, ...node } }).node;
  }

  /** One heartbeat: reports what runs, then starts what the reply wants and stops the rest. */
  async beat(): Promise<void> {
    const replicas = [...this.engines].map(([id, { model, engine }]) =>
      replicaReport({ id, model, state: "ready", endpoint: engine.url }),
    );
    const reply = await this.send({ node: this.node, replicas });
    const wanted = new Map(reply.replicas.map((r) => [r.id, r]));
    for (const [id, { engine }] of this.engines) {
      if (wanted.has(id)) continue;
      this.engines.delete(id);
      await engine.close();
    }
    for (const [id, desired] of wanted) {
      if (this.engines.has(id)) continue;
      const { model } = desired;
      const engine = await StandInEngine.start({ model, ...this.engineOptions });
      engine.knobs.failing = this.failing(desired);
      if (this.#holding) this.#release.push(engine.hold());
      this.engines.set(id, { model, engine });
      this.started.push(engine);
    }
  }

  /** Beats until the reply and the report agree (started engines reported ready). */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const before = [...this.engines.keys()].join();
      await this.beat();
      if ([...this.engines.keys()].join() === before) return;
    }
  }

  /** Beats every `everyMs` until closed (one beat at a time). */
  run(everyMs = 50): void {
    this.#timer ??= setInterval(() => {
      this.#beating ??= this.beat()
        .catch(() => undefined)
        .finally(() => {
          this.#beating = null;
        });
    }, everyMs);
  }

  /** Requests reaching any engine, now or started later, wait until the returned function is called. */
  hold(): () => void {
    this.#holding = true;
    for (const { engine } of this.engines.values()) this.#release.push(engine.hold());
    return () => {
      this.#holding = false;
      for (const release of this.#release.splice(0)) release();
    };
  }

  /** The engine of a replica. */
  engineOf(id: string): StandInEngine {
    const found = this.engines.get(id)?.engine;
    if (!found) throw new Error(`the agent runs no replica ${id}`);
    return found;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
    for (const release of this.#release.splice(0)) release();
    await Promise.all(this.started.map((e) => e.close()));
    this.engines.clear();
  }
}

/** A beat over HTTP, for a server in another process. */
export function beatOver(url: string): Beat {
  return async (body) => {
    const res = await fetch(`${url}/api/v1/agents/heartbeat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`heartbeat: ${res.status} ${await res.text()}`);
    return (await res.json()) as HeartbeatReply;
  };
}

/** One chat completion for `model` through the gateway at `url`: a request the autoscaler counts. */
export function chatAt(url: string, model: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
}
