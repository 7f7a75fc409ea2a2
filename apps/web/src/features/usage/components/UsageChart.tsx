import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { chartTheme, followWidth, leftAxis, roundUpAny, stillChart } from "../../../lib/chart-style";
import type { Stacked } from "../series";
import { colorOf } from "./colors";

/**
 * One figure of the Usage page over the period, one filled series per key, stacked (SPEC §12.2).
 * uPlot fills each series down to zero, so the keys are drawn top edge first, largest stack
 * first: each key's band is what the next one down leaves showing. Its own chunk (the page loads
 * it lazily); a picture only: the legend and the table beside it carry the numbers.
 */

const HEIGHT = 200;

function options(width: number, stacked: Stacked, unit: (n: number) => string): uPlot.Options {
  const theme = chartTheme();
  const { muted: stroke, font } = theme;
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const order = stacked.keys.map((_, k) => k).reverse();
  return {
    ...stillChart(width, HEIGHT),
    scales: {
      x: { time: true },
      // A round top, fractions too: a few minutes of one replica are 0.05 h.
      y: { range: (_u, _min, max) => [0, roundUpAny(max)] },
    },
    axes: [
      { stroke, font, size: 30, gap: 4, grid: { show: false }, ticks: { show: false } },
      leftAxis(theme, (_u, splits) => splits.map(unit), 56),
    ],
    series: [
      {},
      ...order.map((k) => ({
        label: stacked.keys[k] ?? "",
        stroke: colorOf(k),
        fill: colorOf(k),
        width: 1,
        points: { show: false },
        paths: stepped,
      })),
    ],
  };
}

const dataOf = (stacked: Stacked): uPlot.AlignedData => [
  stacked.x,
  ...stacked.keys.map((_, k) => stacked.tops[k] ?? []).reverse(),
];

type Props = { stacked: Stacked; unit: (n: number) => string; label: string };

export default function UsageChart({ stacked, unit, label }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  // The series are part of uPlot's options: a new set of keys draws a new chart.
  const shape = stacked.keys.join("\u0000");

  // biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the keys change (shape), not on every refetch; the data follows below
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const plot = new uPlot(
      options(Math.max(160, element.clientWidth), stacked, unit),
      dataOf(stacked),
      element,
    );
    const stop = followWidth(plot, element, HEIGHT);
    plotRef.current = plot;
    return () => {
      stop();
      plot.destroy();
      plotRef.current = null;
    };
  }, [shape]);

  useEffect(() => {
    plotRef.current?.setData(dataOf(stacked));
  }, [stacked]);

  const total = stacked.totals.reduce((a, b) => a + b, 0);
  return (
    <div
      ref={box}
      className="usage-chart"
      aria-hidden="true"
      data-testid={`usage-chart-${label}`}
      data-keys={JSON.stringify(stacked.keys)}
      data-total={String(total)}
    />
  );
}
