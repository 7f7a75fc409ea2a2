import type { contract } from "@llmgw/contract";
import { heartbeatReplicaSchema, heartbeatReplySchema, refusalOf } from "@llmgw/domain";
import { reasonOf, request } from "./http";
import type { Machine } from "./machine";
import type { AgentLog, DesiredReplica, ReportedReplica, Supervisor } from "./supervisor";

export type AgentOptions = {
  /** The control plane's base URL, e.g. http://10.0.0.1:8080. */
  server: string;
  token?: string | undefined;
  machine: Machine;
  supervisor: Supervisor;
  /** Until the server's first reply says otherwise. */
  intervalSeconds: number;
  /**
   * Replicas this machine runs that the agent did not start (the demo's "someone's experiment"):
   * reported as they are on every beat, never started or stopped by the agent.
   */
  selfReported?: readonly ReportedReplica[];
  log: AgentLog;
  /** Told on each reply which versions to keep cached though unused (SPEC §11.2). */
  keep?: (versions: readonly { model: string; version: string }[]) => void;
};

export type RunningAgent = {
  /** Stops the engines, tells the server (best effort), and ends the loop. */
  stop(): Promise<void>;
};

/** The server may ask for any positive interval; this floor keeps a typo from flooding it. */
const MIN_INTERVAL_SECONDS = 0.05;
/** Progress (bytes downloaded) is worth a beat of its own at most this often; states at once. */
const PROGRESS_BEAT_MS = 1000;
const BEAT_TIMEOUT_MS = 10_000;

/**
 * The heartbeat loop (SPEC §3): report the node and its replicas, run what the reply desires.
 * A server that is down is logged once and retried; the engines keep running meanwhile, since
 * the server being away is no reason to stop serving.
 */
export function runAgent(options: AgentOptions): RunningAgent {
  const { machine, supervisor, log } = options;
  const heartbeatUrl = `${options.server.replace(/\/+$/, "")}${HEARTBEAT}`;
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const selfReported = options.selfReported ?? [];
  const ignored = new Set(selfReported.map((r) => r.id));
  let intervalSeconds = options.intervalSeconds;
  let trouble: string | null = null;
  let stopped = false;
  let wake: () => void = () => undefined;
  // An early beat asked for by the supervisor (SPEC §8.3): "state" now, "progress" once
  // PROGRESS_BEAT_MS after the last beat began. Cleared as a beat begins: its report has the change.
  let early: "state" | "progress" | null = null;
  let lastBeatAt = 0;
  let progressTimer: NodeJS.Timeout | null = null;
  let beating = false;
  const untilProgressBeat = () => Math.max(0, lastBeatAt + PROGRESS_BEAT_MS - Date.now());
  const unwatch = supervisor.onChange((change) => {
    if (change === "state") early = "state";
    else early ??= "progress";
    // A beat under way sends the change on its next turn (the loop looks at `early` first); a
    // server away is not asked more often than the interval says.
    if (beating || trouble !== null) return;
    if (early === "state") wake();
    else
      progressTimer ??= setTimeout(() => {
        progressTimer = null;
        wake();
      }, untilProgressBeat());
  });

  const beat = async (timeoutMs: number): Promise<unknown> => {
    const report = {
      node: await machine.facts(),
      replicas: [...(await supervisor.report()), ...selfReported].map(onTheWire),
    };
    const res = await request(heartbeatUrl, {
      method: "POST",
      headers,
      json: report,
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((err: unknown) => {
      throw new Unreachable(reasonOf(err));
    });
    const text = await res.text().catch(() => "");
    if (res.status < 200 || res.status > 299) throw Refused.of(res.status, text);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new BadReply(`the answer (${res.status}) is not JSON`);
    }
  };

  const once = async () => {
    early = null;
    lastBeatAt = Date.now();
    if (progressTimer) clearTimeout(progressTimer);
    progressTimer = null;
    try {
      const reply = parseReply(await beat(BEAT_TIMEOUT_MS));
      if (reply.intervalSeconds !== null) intervalSeconds = reply.intervalSeconds;
      options.keep?.(reply.keep);
      supervisor.apply(reply.replicas.filter((r) => !ignored.has(r.id)));
      if (trouble !== null) log.info(`heartbeat: ${options.server} answers again`);
      trouble = null;
    } catch (err) {
      const [kind, message] =
        err instanceof Refused
          ? [
              `refused ${err.status} ${err.code}`,
              `the server refused the heartbeat: ${err.status} ${err.message.slice(0, 300)}`,
            ]
          : err instanceof BadReply
            ? ["bad reply", `the server's reply is not a heartbeat reply: ${err.message}`]
            : ["unreachable", `cannot reach ${options.server} (${reasonOf(err)})`];
      // Said once per kind of trouble: a server down for an hour must not fill the log, nor must
      // one whose dropped connections read differently from one beat to the next (reset, closed).
      if (kind !== trouble) {
        log.warn(`heartbeat: ${message}; retrying every ${intervalSeconds}s, engines keep running`);
      }
      trouble = kind;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      beating = true;
      await once();
      beating = false;
      if (stopped) break;
      const waitMs =
        trouble !== null
          ? intervalSeconds * 1000
          : early === "state"
            ? 0
            : early === "progress"
              ? Math.min(untilProgressBeat(), intervalSeconds * 1000)
              : intervalSeconds * 1000;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    async stop() {
      stopped = true;
      unwatch();
      if (progressTimer) clearTimeout(progressTimer);
      wake();
      await loop;
      await supervisor.stopAll();
      // So the fleet page shows the engines gone now rather than when the node goes down.
      await beat(2000).catch(() => undefined);
    },
  };
}

/** The fields of a reported replica the heartbeat contract knows. */
const CONTRACT_FIELDS: ReadonlySet<string> = new Set(Object.keys(heartbeatReplicaSchema.shape));

/**
 * A reported replica as the server reads it. The contract refuses unknown fields, and the agent
 * knows more than some servers read (a failed replica's `reason`): what the contract does not
 * carry stays in the agent's log, and reaches the server as soon as the contract carries it.
 */
export function onTheWire(replica: ReportedReplica): ReportedReplica {
  return Object.fromEntries(
    Object.entries(replica).filter(([field]) => CONTRACT_FIELDS.has(field)),
  ) as ReportedReplica;
}

/** The heartbeat's route, as the contract has it: a literal that fails the type check if it moves. */
const HEARTBEAT: (typeof contract)["agents"]["heartbeat"]["path"] = "/api/v1/agents/heartbeat";

class BadReply extends Error {}

/** No answer came: the server is down, unreachable, or too slow. */
class Unreachable extends Error {}

/** The server answered with a refusal: its status, and the error's code and message when it says. */
class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** Reads the API's error shape as every client does (refusalOf), or keeps the start of the text. */
  static of(status: number, text: string): Refused {
    const { code, message } = refusalOf(status, text);
    // Not the API's shape (a proxy's page, say): the start of its text says more than the status.
    return code === null
      ? new Refused(status, "http", text.slice(0, 300) || `HTTP ${status}`)
      : new Refused(status, code, message);
  }
}

/**
 * The desired replicas, checked against the contract; the interval is read leniently, so a server
 * (or a test) asking for a fraction of a second is obeyed.
 */
function parseReply(reply: unknown): {
  intervalSeconds: number | null;
  replicas: DesiredReplica[];
  keep: { model: string; version: string }[];
} {
  if (typeof reply !== "object" || reply === null) throw new BadReply(JSON.stringify(reply));
  const replicas = heartbeatReplySchema.shape.replicas.safeParse("replicas" in reply ? reply.replicas : null);
  if (!replicas.success) throw new BadReply(replicas.error.message.slice(0, 300));
  const asked = "intervalSeconds" in reply ? reply.intervalSeconds : null;
  const intervalSeconds =
    typeof asked === "number" && asked > 0 ? Math.max(MIN_INTERVAL_SECONDS, asked) : null;
  // A server before SPEC §11 sends none: nothing is kept beyond what replicas use.
  const keep = heartbeatReplySchema.shape.keep.safeParse("keep" in reply ? reply.keep : undefined);
  return { intervalSeconds, replicas: replicas.data, keep: keep.success ? (keep.data ?? []) : [] };
}
