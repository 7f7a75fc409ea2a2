import type { BenchRun } from "@llmgw/domain";
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { bottomAxis, chartTheme, followWidth, leftAxis, roundUp, stillChart } from "../../../lib/chart-style";

/**
 * The bench's tokens/s against concurrency, drawn with uPlot in its own chunk (loaded only by a
 * card that has a bench, as the traffic chart is). The picture only: BenchPanel gives its words.
 */

const HEIGHT = 88;

function options(width: number, runs: readonly BenchRun[]): uPlot.Options {
  const theme = chartTheme();
  const { accent } = theme;
  const last = Math.max(1, runs.length - 1);
  return {
    ...stillChart(width, HEIGHT),
    // Concurrency levels are evenly spaced by their place, not their value (1, 4, 16 read as steps).
    scales: {
      x: { time: false, range: [-0.2, last + 0.2] },
      y: { range: (_u, _min, max) => [0, roundUp(max)] },
    },
    axes: [
      bottomAxis(
        theme,
        () => runs.map((_, i) => i),
        (_u, splits) => splits.map((i) => `${runs[i]?.concurrency ?? ""}×`),
        20,
      ),
      leftAxis(theme, (_u, splits) => splits.map((s) => String(Math.round(s))), 36),
    ],
    series: [
      {},
      { label: "tokens/s", stroke: accent, width: 1.5, fill: `${accent}22`, points: { show: true, size: 6 } },
    ],
  };
}

const dataOf = (runs: readonly BenchRun[]): uPlot.AlignedData => [
  runs.map((_, i) => i),
  runs.map((r) => r.tokensPerSecond),
];

export default function BenchChart({ runs }: { runs: readonly BenchRun[] }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const plot = new uPlot(options(Math.max(120, element.clientWidth), runs), dataOf(runs), element);
    const stop = followWidth(plot, element, HEIGHT);
    return () => {
      stop();
      plot.destroy();
    };
  }, [runs]);

  return <div ref={box} className="bench-chart-plot" aria-hidden="true" />;
}
