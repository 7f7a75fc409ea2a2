import { type BenchSend, BenchStopped, runBench } from "@llmgw/client/bench";
import type { BenchProgressEvent, BenchRequest, BenchStarted } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { modelNamed } from "./modelNamed";
import { storeBench } from "./storeBench";

/** How often a running bench tells the screens, at most: every request's end would be a flood. */
const PROGRESS_EVERY_MS = 250;

/** The benches running in this process, one per model; they end on their own or with `closeAll`. */
export class BenchRuns {
  readonly #running = new Map<
    string,
    { started: BenchStarted; stop: AbortController; done: Promise<void> }
  >();

  get(model: string): BenchStarted | null {
    return this.#running.get(model)?.started ?? null;
  }

  /** Resolves once `model`'s running bench has ended (stored or failed); at once when none runs. */
  async settled(model: string): Promise<void> {
    await this.#running.get(model)?.done;
  }

  add(started: BenchStarted, stop: AbortController, run: () => Promise<void>): void {
    const done = run().finally(() => this.#running.delete(started.model));
    this.#running.set(started.model, { started, stop, done });
  }

  /** Stops every bench (the server is shutting down); what they measured is not stored. */
  async closeAll(): Promise<void> {
    const all = [...this.#running.values()];
    for (const run of all) run.stop.abort(new Error("the server is stopping"));
    await Promise.all(all.map((r) => r.done));
  }
}

/**
 * `POST /models/:name/bench` (SPEC §5): measures the model through the gateway in the background,
 * as `llmgw ctl bench` does from outside, and stores the result as its bench. Progress goes to
 * this process's streams as `model.bench` events; the stored result as the card's `model.changed`.
 * One bench per model at a time: a second is a 409 while the first runs.
 */
export async function startBench({
  deps,
  runs,
  send,
  input,
  by,
}: {
  deps: Deps;
  runs: BenchRuns;
  /** The request path, sending as `by`: the bench's requests count as theirs. */
  send: BenchSend;
  /** The model's name, and the bench asked for (already checked by the route's schema). */
  input: { name: string; request: BenchRequest };
  by: string;
}): Promise<BenchStarted> {
  const { name, request } = input;
  const model = modelNamed(await deps.world.snapshot(), name);
  const running = runs.get(model.name);
  if (running) {
    throw new AppError({
      code: "bench_running",
      message: `a bench of ${model.name} is running (started ${running.startedAt} by ${running.by}); wait for it to end`,
    });
  }
  const started: BenchStarted = {
    model: model.name,
    startedAt: deps.now().toISOString(),
    by,
    total: request.requests * request.concurrency.length,
  };
  const stop = new AbortController();
  const progress = throttledProgress(deps, model.name, started.total, request.concurrency[0] ?? 1);
  runs.add(started, stop, async () => {
    try {
      const result = await runBench({
        model: model.name,
        ...request,
        send,
        signal: stop.signal,
        replicas: async () => (await deps.world.snapshot()).replicasByModel.get(model.name) ?? [],
        onProgress: (p) => progress.running(p),
      });
      await storeBench({ deps, input: { name: model.name, result }, by });
      progress.ended(null);
    } catch (err) {
      if (err instanceof BenchStopped) progress.ended(`${err.message} (${err.code})`);
      else if (stop.signal.aborted) progress.ended(`stopped: ${String(stop.signal.reason)}`);
      else {
        deps.log.error({ err, model: model.name }, "a bench failed");
        progress.ended(String(err));
      }
    }
  });
  return started;
}

function throttledProgress(deps: Deps, model: string, total: number, firstConcurrency: number) {
  let last: BenchProgressEvent = {
    model,
    running: true,
    concurrency: firstConcurrency,
    done: 0,
    total,
    errors: 0,
    error: null,
  };
  let sentAt = 0;
  const send = (event: BenchProgressEvent) => {
    sentAt = performance.now();
    deps.hub.sendEphemeral({ type: "model.bench", data: event });
  };
  send(last);
  return {
    running(p: { concurrency: number; done: number; errors: number }) {
      last = { ...last, ...p };
      if (performance.now() - sentAt >= PROGRESS_EVERY_MS) send(last);
    },
    ended(error: string | null) {
      send({ ...last, running: false, error });
    },
  };
}
