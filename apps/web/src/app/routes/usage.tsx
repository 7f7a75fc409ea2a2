import type { UsageKey } from "@llmgw/domain";
import { lazy, type ReactNode, Suspense, useMemo } from "react";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { Empty } from "../../components/Status";
import { type UsageReading, useUsage } from "../../features/usage/api/get-usage";
import { UsageControls } from "../../features/usage/components/UsageControls";
import { UsageLegend } from "../../features/usage/components/UsageLegend";
import { UsageTable } from "../../features/usage/components/UsageTable";
import { compact, hours, hoursAxis, tokens } from "../../features/usage/figures";
import { keyFrom, type Period, periodFrom, periodOf } from "../../features/usage/period";
import { replicaHoursOf, type Stacked, stack, sumsByKey, tokensOf } from "../../features/usage/series";
import { setSearchParam, useLocation } from "../../lib/router";

// uPlot comes with the charts, when there is something to draw.
const UsageChart = lazy(() => import("../../features/usage/components/UsageChart"));

/** SPEC §12.2: who used what, by the key and over the period the address names. */
export default function UsageRoute() {
  const { search } = useLocation();
  const by = keyFrom(search.get("by"));
  const period = periodFrom(search.get("period"));
  const usage = useUsage(by, period);
  return (
    <>
      <PageHeader title="Usage" />
      <UsageControls
        by={by}
        period={period}
        onBy={(next) => setSearchParam("by", next)}
        onPeriod={(next) => setSearchParam("period", next)}
      />
      <Loaded query={usage} what="usage">
        {(reading) => <UsageReport reading={reading} period={period} />}
      </Loaded>
    </>
  );
}

/** One stacked chart of the reading with its legend, or what to say when it has nothing. */
function UsageFigure(props: {
  id: string;
  title: string;
  stacked: Stacked;
  empty: ReactNode;
  unit: (n: number) => string;
  figure: (n: number) => string;
  label: string;
}) {
  const { id, title, stacked, empty, unit, figure, label } = props;
  return (
    <section aria-labelledby={id} className="usage-figure">
      <h2 id={id}>{title}</h2>
      {stacked.keys.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <>
          <Suspense fallback={<div className="usage-chart" />}>
            <UsageChart stacked={stacked} unit={unit} label={label} />
          </Suspense>
          <UsageLegend stacked={stacked} figure={figure} label={label} />
        </>
      )}
    </section>
  );
}

function UsageReport({ reading, period }: { reading: UsageReading; period: Period }) {
  const { by, rows } = reading;
  const tokenStack = useMemo(() => stack(rows, tokensOf, reading), [rows, reading]);
  const replicaStack = useMemo(() => stack(rows, replicaHoursOf, reading), [rows, reading]);
  const sums = useMemo(() => sumsByKey(rows), [rows]);
  if (rows.length === 0) return <NoUsage period={period} />;
  return (
    <>
      <UsageFigure
        id="usage-tokens"
        title={`Tokens by ${keyWords(by)}, by ${reading.step}`}
        stacked={tokenStack}
        empty={
          <>
            No tokens counted in this period: requests to <code>/v1</code> show here within seconds.
          </>
        }
        unit={compact}
        figure={(n) => `${tokens(n)} tokens`}
        label="tokens"
      />
      {by !== "token" && (
        <UsageFigure
          id="usage-replicas"
          title={`Replica-hours by ${keyWords(by)}, by ${reading.step}`}
          stacked={replicaStack}
          empty="No replica was ready in this period."
          unit={hoursAxis}
          figure={(n) => `${hours(n)} h`}
          label="replica-hours"
        />
      )}
      <h2>By {keyWords(by)}</h2>
      <UsageTable by={by} rows={sums} totals={reading.totals} />
    </>
  );
}

const keyWords = (by: UsageKey) => (by === "token" ? "client token" : by);

/** Nothing counted in the period: how usage comes to be. */
function NoUsage({ period }: { period: Period }) {
  return (
    <div className="empty" data-testid="usage-empty">
      <p>No usage in the {periodOf(period).label}.</p>
      <p>
        Send a request to <code>{window.location.origin}/v1/chat/completions</code> naming a model (any OpenAI
        client, base URL <code>{window.location.origin}/v1</code>): its requests and tokens appear here within
        seconds, by model, client token and owner, and each model's replica-hours while it has replicas ready.
      </p>
    </div>
  );
}
