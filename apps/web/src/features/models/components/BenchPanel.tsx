import { contract } from "@llmgw/contract";
import { type BenchRun, benchLine, type ModelSummary } from "@llmgw/domain";
import { lazy, type ReactNode, Suspense } from "react";
import { FormError } from "../../../components/ActionError";
import { useMayCall } from "../../../lib/session";
import { ago } from "../../../lib/units";
import { useStartBench } from "../api/start-bench";
import { useBenchProgress } from "../bench-progress";

// The chart's code comes with the first card that has a bench, not with the page.
const BenchChart = lazy(
  (): Promise<{ default: (props: { runs: readonly BenchRun[] }) => ReactNode }> =>
    import("./BenchChart").catch((err: unknown) => {
      console.error("llmgw: the bench chart could not be loaded", err);
      return { default: () => null };
    }),
);

/** The chart's words, for screen readers: tokens/s at each concurrency. */
export function benchSummary(runs: readonly BenchRun[]): string {
  const points = runs.map((r) => `${r.tokensPerSecond} at ${r.concurrency}`).join(", ");
  return `Output tokens per second by concurrency: ${points}.`;
}

/**
 * SPEC §5 on the card: the last bench beside the estimate ("measured 41 tok/s at 4 concurrent ·
 * first token 180 ms · 5.2 GB measured (estimate 6 GB)"), tokens/s against concurrency, and
 * "Measure" for operators, with a bar while the server's bench runs.
 */
export function BenchPanel({ model }: { model: ModelSummary }) {
  const mayMeasure = useMayCall(contract.models.bench);
  const start = useStartBench();
  const progress = useBenchProgress(model.name);
  const bench = model.bench ?? null;
  const running = progress?.running === true;
  const titleId = `bench-title-${model.name}`;
  const estimate = model.profiles[0]?.minMemoryGB ?? null;

  return (
    <section className="bench" aria-labelledby={titleId} data-testid="bench">
      <h3 id={titleId} className="traffic-title">
        Bench{" "}
        {bench && (
          <span className="muted">
            · {ago(bench.at)} by {bench.by}
          </span>
        )}
      </h3>
      {bench ? (
        <>
          <p className="bench-line" data-testid="bench-line">
            {benchLine(bench, estimate)}
          </p>
          <div
            className="bench-chart"
            role="img"
            aria-label={benchSummary(bench.runs)}
            data-testid="bench-chart"
          >
            <Suspense fallback={null}>
              <BenchChart runs={bench.runs} />
            </Suspense>
          </div>
        </>
      ) : (
        <p className="muted traffic-none" data-testid="bench-none">
          Not measured yet: the memory above is an estimate
        </p>
      )}
      {running && (
        <span className="replica-progress" data-testid="bench-progress">
          <span className="replica-progress-text">
            measuring at {progress.concurrency} concurrent: {progress.done} / {progress.total} requests
            {progress.errors > 0 ? `, ${progress.errors} errors` : ""}
          </span>
          <progress aria-label={`Bench of ${model.name}`} max={progress.total} value={progress.done} />
        </span>
      )}
      {progress && !progress.running && progress.error && (
        <p className="notice notice-error" role="alert" data-testid="bench-error">
          The bench ended: {progress.error}
        </p>
      )}
      <FormError error={start.error} testId="bench-error" />
      {mayMeasure && (
        <div className="actions">
          <button
            type="button"
            onClick={() => start.mutate(model.name)}
            disabled={running || start.isPending}
            data-testid="bench-start"
          >
            {running ? "Measuring…" : "Measure"}
          </button>
        </div>
      )}
    </section>
  );
}
