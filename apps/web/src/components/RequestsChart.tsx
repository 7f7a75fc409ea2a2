import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { bottomAxis, chartTheme, followWidth, leftAxis, roundUp, STILL } from "../lib/chart-style";

/**
 * The uPlot drawing of a card's requests/s and, for an autoscaled model, its replicas running and
 * wanted on the same time axis (SPEC §9.5), counted on a right-hand axis. Its own chunk (see
 * TrafficPanel): uPlot is ~20 kB gzip, and a page without traffic never needs it. The picture
 * only: the text summary and the numbers are the panel's, so this draws on a canvas screen
 * readers skip.
 */

const HEIGHT = 72;
const MINUTES = [-240, -180, -120, -60, 0];

export type ReplicaSeries = { running: readonly (number | null)[]; wanted: readonly (number | null)[] };

/** A moment marked across the chart (a rollout's start and end, SPEC §11.5): seconds before now. */
export type ChartMark = { x: number; label: string };

type Props = {
  perSecond: readonly number[];
  replicas?: ReplicaSeries | undefined;
  marks?: readonly ChartMark[] | undefined;
};

/** Draws each mark as a dashed vertical line with its label at the top, over the series. */
function drawMarks(u: uPlot, marks: readonly ChartMark[], color: string): void {
  const { ctx, bbox } = u;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  ctx.font = `${10 * uPlot.pxRatio}px sans-serif`;
  for (const mark of marks) {
    const x = Math.round(u.valToPos(mark.x, "x", true));
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.fillText(mark.label, x + 3 * uPlot.pxRatio, bbox.top + 10 * uPlot.pxRatio);
  }
  ctx.restore();
}

function options(
  width: number,
  seconds: number,
  withReplicas: boolean,
  marks: () => readonly ChartMark[],
): uPlot.Options {
  const theme = chartTheme();
  const { accent, muted } = theme;
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const replicaSeries: uPlot.Series[] = [
    {
      label: "replicas running",
      scale: "n",
      stroke: muted,
      width: 1.5,
      points: { show: false },
      paths: stepped,
    },
    {
      label: "replicas wanted",
      scale: "n",
      stroke: muted,
      width: 1,
      dash: [4, 3],
      points: { show: false },
      paths: stepped,
    },
  ];
  const count = leftAxis(theme, (_u, splits) => splits.map((s) => String(Math.round(s))), 24);
  return {
    width,
    height: HEIGHT,
    ...STILL,
    hooks: { draw: [(u) => drawMarks(u, marks(), muted)] },
    // Room on the right for "now", whose label centres on the chart's last second.
    padding: [6, withReplicas ? 4 : 14, 0, 0],
    scales: {
      x: { time: false, range: [-(seconds - 1), 0] },
      y: { range: (_u, _min, max) => [0, roundUp(max)] },
      n: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max))] },
    },
    axes: [
      bottomAxis(
        theme,
        () => MINUTES.filter((s) => s > -seconds),
        (_u, splits) => splits.map((s) => (s === 0 ? "now" : `${s / 60}m`)),
        18,
      ),
      leftAxis(
        theme,
        (_u, splits) => splits.map((s) => (s === 0 ? "0" : s < 10 ? s.toFixed(1) : String(Math.round(s)))),
        30,
      ),
      ...(withReplicas ? [{ ...count, scale: "n", side: 1, grid: { show: false } }] : []),
    ],
    series: [
      {},
      {
        label: "requests/s",
        stroke: accent,
        width: 1.5,
        fill: `${accent}33`,
        points: { show: false },
        paths: stepped,
      },
      ...(withReplicas ? replicaSeries : []),
    ],
  };
}

function dataOf({ perSecond, replicas }: Props): uPlot.AlignedData {
  const last = perSecond.length - 1;
  const x = perSecond.map((_, i) => i - last);
  if (!replicas) return [x, [...perSecond]];
  return [x, [...perSecond], [...replicas.running], [...replicas.wanted]];
}

export default function RequestsChart(props: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const withReplicas = props.replicas !== undefined;

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const now = latest.current;
    const created = new uPlot(
      options(
        Math.max(120, element.clientWidth),
        now.perSecond.length,
        withReplicas,
        () => latest.current.marks ?? [],
      ),
      dataOf(now),
      element,
    );
    plot.current = created;
    const stop = followWidth(created, element, HEIGHT);
    return () => {
      stop();
      created.destroy();
      plot.current = null;
    };
  }, [withReplicas]);

  const { perSecond, replicas, marks } = props;
  useEffect(() => {
    plot.current?.setData(dataOf({ perSecond, replicas }));
  }, [perSecond, replicas]);
  useEffect(() => {
    if (marks) plot.current?.redraw(false, false);
  }, [marks]);

  return <div ref={box} className="requests-chart" aria-hidden="true" />;
}
