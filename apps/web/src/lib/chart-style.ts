// What the dashboard's small uPlot charts share: the page's colours and a round axis top. Loaded
// only with a chart's own chunk.

/** The axis top: 1, 2 or 5 times a power of ten, so the labels read as round numbers. */
export function roundUp(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}

/** A CSS custom property of the page (`--accent`), so a chart follows the theme. */
export function css(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}
