import type uPlot from "uplot";

// What the dashboard's small uPlot charts share: the page's colours, a still picture (no legend,
// cursor or selection), their axes' look, a round axis top, and following the card's width. Loaded
// only with a chart's own chunk (the type import is erased).

/** The axis top: 1, 2 or 5 times a power of ten, so the labels read as round numbers; at least 1. */
export function roundUp(max: number): number {
  return max <= 1 ? 1 : roundUpAny(max);
}

/** The same for any positive top, fractions too (0.05, 0.2); 1 for none. */
export function roundUpAny(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}

/** A CSS custom property of the page (`--accent`), so a chart follows the theme. */
function css(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export type ChartTheme = { accent: string; muted: string; grid: string; font: string };

export function chartTheme(): ChartTheme {
  return {
    accent: css("--accent", "#0f766e"),
    muted: css("--muted", "#5b6675"),
    grid: css("--border", "#dde2e8"),
    font: `11px ${css("--font", "system-ui")}`,
  };
}

/** A picture, not an instrument: the numbers beside it are the panel's. */
export const STILL = {
  legend: { show: false },
  cursor: { show: false },
  select: { show: false, left: 0, top: 0, width: 0, height: 0 },
} satisfies Partial<uPlot.Options>;

/** A still chart of this size with the small charts' padding (room for the top label). */
export const stillChart = (width: number, height: number) =>
  ({ width, height, ...STILL, padding: [8, 12, 0, 0] }) satisfies Partial<uPlot.Options>;

/** The x axis: labels only, no grid or ticks. */
export function bottomAxis(
  theme: ChartTheme,
  splits: NonNullable<uPlot.Axis["splits"]>,
  values: NonNullable<uPlot.Axis["values"]>,
  size: number,
): uPlot.Axis {
  const { muted: stroke, font } = theme;
  return { stroke, font, size, gap: 2, grid: { show: false }, ticks: { show: false }, splits, values };
}

/** The y axis: 0, half and the top, with gridlines. */
export function leftAxis(
  theme: ChartTheme,
  values: NonNullable<uPlot.Axis["values"]>,
  size: number,
): uPlot.Axis {
  const { muted: stroke, font, grid } = theme;
  return {
    stroke,
    font,
    size,
    gap: 2,
    ticks: { show: false },
    grid: { stroke: grid, width: 1 },
    splits: (_u, _axis, _min, max) => [0, max / 2, max],
    values,
  };
}

/** Keeps `plot` as wide as `element` (at least 120 px); returns how to stop. */
export function followWidth(plot: uPlot, element: HTMLElement, height: number): () => void {
  const resize = new ResizeObserver(() => {
    plot.setSize({ width: Math.max(120, element.clientWidth), height });
  });
  resize.observe(element);
  return () => resize.disconnect();
}
