import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { bottomAxis, chartTheme, followWidth, leftAxis, roundUp, STILL } from "../lib/chart-style";

/**
 * The uPlot drawing of a card's requests/s. Its own chunk (see TrafficPanel): uPlot is ~20 kB
 * gzip, and a page without traffic never needs it. The picture only: the text summary and the
 * numbers are the panel's, so this draws on a canvas screen readers skip.
 */

const HEIGHT = 72;
const MINUTES = [-240, -180, -120, -60, 0];

function options(width: number, seconds: number): uPlot.Options {
  const theme = chartTheme();
  const { accent } = theme;
  return {
    width,
    height: HEIGHT,
    ...STILL,
    // Room on the right for "now", whose label centres on the chart's last second.
    padding: [6, 14, 0, 0],
    scales: {
      x: { time: false, range: [-(seconds - 1), 0] },
      y: { range: (_u, _min, max) => [0, roundUp(max)] },
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
    const stop = followWidth(created, element, HEIGHT);
    return () => {
      stop();
      created.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(dataOf(perSecond));
  }, [perSecond]);

  return <div ref={box} className="requests-chart" aria-hidden="true" />;
}
