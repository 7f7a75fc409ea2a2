import type { ModelTraffic, RolloutView } from "@llmgw/domain";
import { lazy, type ReactNode, Suspense, useEffect, useMemo } from "react";
import { type ScalePoint, scaleSeries, useModelScaling } from "../lib/scaling";
import {
  cacheHitRatio,
  traffic as pageTraffic,
  TRAFFIC_WINDOW_SECONDS,
  type TrafficSnapshot,
  useModelTraffic,
} from "../lib/traffic";
import { useModelTrafficHistory } from "../lib/traffic-history";
import { millis, rate, waited } from "../lib/units";
import { useNow } from "../lib/use-now";
import type { ChartMark, ReplicaSeries } from "./RequestsChart";

// The chart library loads with the first card that has traffic, not with the page.
/**
 * The chart's code comes on first use. When it cannot be fetched (the server restarted with a
 * newer build, the network dropped), the card keeps its numbers and the chart's text summary
 * rather than taking the whole page down.
 */
const RequestsChart = lazy(
  (): Promise<{
    default: (props: {
      perSecond: readonly number[];
      replicas?: ReplicaSeries | undefined;
      marks?: readonly ChartMark[] | undefined;
    }) => ReactNode;
  }> =>
    import("./RequestsChart").catch((err: unknown) => {
      console.error("llmgw: the traffic chart could not be loaded", err);
      return { default: () => null };
    }),
);

const percentOrDash = (ratio: number | null) => (ratio === null ? "—" : `${Math.round(ratio * 100)}%`);

const WINDOW_MINUTES = Math.round(TRAFFIC_WINDOW_SECONDS / 60);

/** The chart's words, for screen readers: what a sighted operator reads off its shape. */
export function trafficSummary({ perSecond }: TrafficSnapshot): string {
  const now = perSecond[perSecond.length - 1] ?? 0;
  const peak = Math.max(0, ...perSecond);
  const average = perSecond.reduce((sum, n) => sum + n, 0) / Math.max(1, perSecond.length);
  const peakAt = perSecond.length - 1 - perSecond.lastIndexOf(peak);
  const when = peakAt === 0 ? "now" : peakAt < 60 ? `${peakAt} s ago` : `${Math.round(peakAt / 60)} min ago`;
  const title = `Requests per second over the last ${WINDOW_MINUTES} minutes`;
  if (peak === 0) return `${title}: none.`;
  return `${title}: ${rate(now)} now, peak ${rate(peak)} (${when}), average ${rate(average)}.`;
}

/** The replica lines' words: "Replicas: 4 running, 4 wanted now; between 1 and 4 in the window." */
export function replicasSummary(series: ReplicaSeries): string {
  const seen = series.running.filter((n): n is number => n !== null);
  const running = series.running.at(-1);
  const wanted = series.wanted.at(-1);
  if (seen.length === 0 || running == null || wanted == null) return "";
  const low = Math.min(...seen);
  const high = Math.max(...seen);
  const range = low === high ? `${low} throughout` : `between ${low} and ${high}`;
  return ` Replicas: ${running} running, ${wanted} wanted now; ${range} in the window.`;
}

/** What the chart marks of a model's last rollout (SPEC §11.5): when it began and, once over, ended. */
export type RolloutMarks = Pick<RolloutView, "to" | "state" | "startedAt" | "at">;

/**
 * The rollout's marks on a window of `length` seconds from `from` (Unix seconds): where it began
 * and where it ended (done or rolled back), each only when inside the window; x in seconds before
 * the window's last second, as the chart's axis runs.
 */
export function rolloutMarks(
  rollout: RolloutMarks | null | undefined,
  from: number,
  length: number,
): ChartMark[] {
  if (!rollout) return [];
  const last = from + length - 1;
  const at = (iso: string) => Math.floor(Date.parse(iso) / 1000) - last;
  const marks: ChartMark[] = [{ x: at(rollout.startedAt), label: `rollout to r${rollout.to}` }];
  if (rollout.state === "done") marks.push({ x: at(rollout.at), label: "done" });
  if (rollout.state === "rolledBack") marks.push({ x: at(rollout.at), label: "rolled back" });
  return marks.filter((m) => Number.isFinite(m.x) && m.x <= 0 && m.x > -length);
}

/** The marks' words: "Rollout to revision 3 began 40 s ago; done 12 s ago." */
export function marksSummary(rollout: RolloutMarks | null | undefined, marks: readonly ChartMark[]): string {
  if (!rollout || marks.length === 0) return "";
  const ago = (x: number) => (x === 0 ? "now" : `${-x} s ago`);
  return marks
    .map((m, i) =>
      i === 0 && m.label.startsWith("rollout")
        ? `Rollout to revision ${rollout.to} began ${ago(m.x)}`
        : `${m.label === "done" ? "done" : "rolled back"} ${ago(m.x)}`,
    )
    .join("; ")
    .concat(".");
}

/** "waking: 3 requests waiting for 12 s" while the model has no ready replica and requests wait. */
export function wakingText({ queued, waitingSeconds }: ModelTraffic): string {
  const requests = `${queued} request${queued === 1 ? "" : "s"} waiting`;
  return `waking: ${waitingSeconds === null ? requests : `${requests} for ${waited(waitingSeconds)}`}`;
}

/**
 * One model's live traffic through the gateway: requests/s over the last minutes as a small
 * chart, and what is in flight, queued and how fast the first byte comes; for an autoscaled
 * model, its replicas running and wanted on the same time axis (SPEC §9.5), so an operator sees
 * capacity following traffic. The chart starts from the server's last minutes (SPEC §7.7), so a
 * page opened after the traffic still draws it, then follows the event stream. Subscribes to its
 * own model only, so a traffic event renders this panel and nothing around it.
 */
export function TrafficPanel({ model, rollout }: { model: string; rollout?: RolloutMarks | null }) {
  const history = useModelTrafficHistory(model);
  useEffect(() => {
    if (history.data) pageTraffic.seed(history.data);
  }, [history.data]);
  const traffic = useModelTraffic(model);
  const points = useModelScaling(model);
  const known = knownFrom(history);
  if (traffic !== null) return <TrafficBody traffic={traffic} points={points} rollout={rollout} />;
  // Replicas that moved in the window are worth a chart even once the traffic has gone.
  if (points !== null && points.length > 1 && movedWithin(points, Date.now()))
    return <ReplicasAlone model={model} points={points} known={known} rollout={rollout} />;
  return <NoTraffic known={known} />;
}

/**
 * Since when the page knows the model's traffic: the server's history reaches back to its `since`
 * (null: it keeps none), and the event stream to when the page began listening. `reading` while the
 * history is on its way; `because` says why what is known starts late.
 */
type Known = { from: number; reading: boolean; because: string };

function knownFrom(history: ReturnType<typeof useModelTrafficHistory>): Known {
  const listening = pageTraffic.listeningSince;
  const { data } = history;
  if (data && data.since !== null) {
    const from = (data.since + Math.floor(data.receivedAt / 1000) - data.now) * 1000;
    return { from: Math.min(from, listening), reading: false, because: "the server counts from then" };
  }
  if (data) return { from: listening, reading: false, because: "the server keeps no traffic history" };
  if (history.isError)
    return { from: listening, reading: false, because: "the server's traffic history could not be read" };
  return { from: listening, reading: true, because: "" };
}

const knowsWindow = (known: Known, now: number) => known.from <= now - TRAFFIC_WINDOW_SECONDS * 1000;

/**
 * "No traffic" only for a time the page knows: the whole window once the history or the stream
 * covers it; else since when it does, and why not before.
 */
function NoTraffic({ known }: { known: Known }) {
  if (knowsWindow(known, Date.now()))
    return (
      <p className="muted traffic-none" data-testid="traffic-none">
        No traffic in the last {WINDOW_MINUTES} minutes
      </p>
    );
  if (known.reading)
    return (
      <p className="muted traffic-none" data-testid="traffic-reading">
        Reading the last minutes of traffic…
      </p>
    );
  return <NoTrafficSince known={known} />;
}

/** The part of the window the page knows, until it knows the whole of it. */
function NoTrafficSince({ known }: { known: Known }) {
  const now = useNow(5000);
  if (knowsWindow(known, now)) return <NoTraffic known={known} />;
  const at = new Date(known.from).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  return (
    <p className="muted traffic-none" data-testid="traffic-none">
      No traffic since {at}; before that is not known: {known.because}
    </p>
  );
}

const movedWithin = (points: readonly ScalePoint[], now: number) =>
  (points.at(-1)?.at ?? 0) >= now - TRAFFIC_WINDOW_SECONDS * 1000;

/** No traffic in the window, but replicas that moved: the window scrolls on by itself, every second. */
function ReplicasAlone({
  model,
  points,
  known,
  rollout,
}: {
  model: string;
  points: readonly ScalePoint[];
  known: Known;
  rollout: RolloutMarks | null | undefined;
}) {
  const clock = useNow(1000);
  const now = Math.floor(clock / 1000);
  const traffic = useMemo<TrafficSnapshot>(
    () => ({
      model,
      from: now - TRAFFIC_WINDOW_SECONDS + 1,
      perSecond: Array.from({ length: TRAFFIC_WINDOW_SECONDS }, () => 0),
      current: null,
    }),
    [model, now],
  );
  if (!movedWithin(points, clock)) return <NoTraffic known={known} />;
  return <TrafficBody traffic={traffic} points={points} rollout={rollout} />;
}

function TrafficBody({
  traffic,
  points,
  rollout,
}: {
  traffic: TrafficSnapshot;
  points: readonly ScalePoint[] | null;
  rollout: RolloutMarks | null | undefined;
}) {
  const { current, perSecond, from, model } = traffic;
  const replicas = useMemo(
    () => (points === null ? undefined : scaleSeries(points, from, perSecond.length)),
    [points, from, perSecond.length],
  );
  const { to, state, startedAt, at } = rollout ?? {};
  const marks = useMemo(
    () =>
      to === undefined || state === undefined || startedAt === undefined || at === undefined
        ? []
        : rolloutMarks({ to, state, startedAt, at }, from, perSecond.length),
    [to, state, startedAt, at, from, perSecond.length],
  );
  const marked = marksSummary(rollout, marks);
  const titleId = `traffic-title-${model}`;
  return (
    <section className="traffic" aria-labelledby={titleId} data-testid="traffic">
      <h3 id={titleId} className="traffic-title">
        Traffic{" "}
        <span className="muted">
          · requests/s{replicas ? " and replicas" : ""}, last {WINDOW_MINUTES} min
        </span>
      </h3>
      {current?.waking && (
        <p className="notice notice-warn traffic-waking" data-testid="traffic-waking">
          {wakingText(current)}
        </p>
      )}
      <div
        className="traffic-chart"
        role="img"
        aria-label={`${trafficSummary(traffic)}${replicas ? replicasSummary(replicas) : ""}${marked ? ` ${marked}` : ""}`}
        data-testid="traffic-chart"
      >
        <Suspense fallback={null}>
          <RequestsChart perSecond={perSecond} replicas={replicas} marks={marks} />
        </Suspense>
      </div>
      {marked && (
        <p className="chart-key muted" data-testid="traffic-rollout">
          {marked}
        </p>
      )}
      {replicas && (
        <p className="chart-key muted" data-testid="traffic-key">
          <span className="key-requests">requests/s</span>{" "}
          <span className="key-running">replicas running</span>{" "}
          <span className="key-wanted">replicas wanted</span>
        </p>
      )}
      <dl className="traffic-now">
        <div>
          <dt>Requests/s</dt>
          <dd data-testid="traffic-rps">{rate(current?.requestsPerSecond ?? 0)}</dd>
        </div>
        <div>
          <dt>In flight</dt>
          <dd data-testid="traffic-in-flight">{current?.inFlight ?? 0}</dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd data-testid="traffic-queued">{current?.queued ?? 0}</dd>
        </div>
        <div>
          <dt>First byte p50</dt>
          <dd data-testid="traffic-first-byte">
            {current && current.firstByteP50Ms !== null ? millis(current.firstByteP50Ms) : "—"}
          </dd>
        </div>
        <div>
          <dt>Tokens/s</dt>
          <dd data-testid="traffic-tokens">{rate(current?.tokensPerSecond ?? 0)}</dd>
        </div>
        <div>
          <dt title="Share of prompt tokens the engines found in their cache (SPEC §7.1a)">Prompt cached</dt>
          <dd data-testid="traffic-cache">{percentOrDash(cacheHitRatio(traffic.prompt))}</dd>
        </div>
      </dl>
    </section>
  );
}
