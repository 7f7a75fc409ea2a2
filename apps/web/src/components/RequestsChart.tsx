import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { css, roundUp } from "../lib/chart-style";

/**
 * The uPlot drawing of a card's requests/s. Its own chunk (see TrafficPanel): uPlot is ~20 kB
 * gzip, and a page without traffic never needs it. The picture only: the text summary and the
 * numbers are the panel's, so this draws on a canvas screen readers skip.
 */

const HEIGHT = 72;
const MINUTES = [-240, -180, -120, -60, 0];

function options(width: number, seconds: number): uPlot.Options {
  const accent = css("--accent", "#0f766e");
  const muted = css("--muted", "#5b6675");
  const grid = css("--border", "#dde2e8");
  const font = `11px ${css("--font", "system-ui")}`;
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    // Room on the right for "now", whose label centres on the chart's last second.
    padding: [6, 14, 0, 0],
    scales: {
      x: { time: false, range: [-(seconds - 1), 0] },
      y: { range: (_u, _min, max) => [0, roundUp(max)] },
    },
    axes: [
      {
        stroke: muted,
        font,
        size: 18,
        gap: 2,
        grid: { show: false },
        ticks: { show: false },
        splits: () => MINUTES.filter((s) => s > -seconds),
        values: (_u, splits) => splits.map((s) => (s === 0 ? "now" : `${s / 60}m`)),
      },
      {
        stroke: muted,
        font,
        size: 30,
        gap: 2,
        ticks: { show: false },
        grid: { stroke: grid, width: 1 },
        splits: (_u, _axis, _min, max) => [0, max / 2, max],
        values: (_u, splits) =>
          splits.map((s) => (s === 0 ? "0" : s < 10 ? s.toFixed(1) : String(Math.round(s)))),
      },
    ],
    series: [
      {},
      {
        label: "requests/s",
        stroke: accent,
        width: 1.5,
        fill: `${accent}33`,
        points: { show: false },
        paths: uPlot.paths.stepped?.({ align: 1 }),
      },
    ],
  };
}

function dataOf(perSecond: readonly number[]): uPlot.AlignedData {
  const last = perSecond.length - 1;
  return [perSecond.map((_, i) => i - last), [...perSecond]];
}

export default function RequestsChart({ perSecond }: { perSecond: readonly number[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(perSecond);
  latest.current = perSecond;

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const created = new uPlot(
      options(Math.max(120, element.clientWidth), latest.current.length),
      dataOf(latest.current),
      element,
    );
    plot.current = created;
    const resize = new ResizeObserver(() => {
      created.setSize({ width: Math.max(120, element.clientWidth), height: HEIGHT });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      created.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(dataOf(perSecond));
  }, [perSecond]);

  return <div ref={box} className="requests-chart" aria-hidden="true" />;
}
