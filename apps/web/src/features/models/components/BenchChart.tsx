import type { BenchRun } from "@llmgw/domain";
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { css, roundUp } from "../../../lib/chart-style";

/**
 * The bench's tokens/s against concurrency, drawn with uPlot in its own chunk (loaded only by a
 * card that has a bench, as the traffic chart is). The picture only: BenchPanel gives its words.
 */

const HEIGHT = 88;

function options(width: number, runs: readonly BenchRun[]): uPlot.Options {
  const accent = css("--accent", "#0f766e");
  const muted = css("--muted", "#5b6675");
  const grid = css("--border", "#dde2e8");
  const font = `11px ${css("--font", "system-ui")}`;
  const last = Math.max(1, runs.length - 1);
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    padding: [8, 12, 0, 0],
    // Concurrency levels are evenly spaced by their place, not their value (1, 4, 16 read as steps).
    scales: {
      x: { time: false, range: [-0.2, last + 0.2] },
      y: { range: (_u, _min, max) => [0, roundUp(max)] },
    },
    axes: [
      {
        stroke: muted,
        font,
        size: 20,
        gap: 2,
        grid: { show: false },
        ticks: { show: false },
        splits: () => runs.map((_, i) => i),
        values: (_u, splits) => splits.map((i) => `${runs[i]?.concurrency ?? ""}×`),
      },
      {
        stroke: muted,
        font,
        size: 36,
        gap: 2,
        ticks: { show: false },
        grid: { stroke: grid, width: 1 },
        splits: (_u, _axis, _min, max) => [0, max / 2, max],
        values: (_u, splits) => splits.map((s) => String(Math.round(s))),
      },
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
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(120, element.clientWidth), height: HEIGHT });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [runs]);

  return <div ref={box} className="bench-chart-plot" aria-hidden="true" />;
}
