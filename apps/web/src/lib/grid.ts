/** The space between cards, in px: the stylesheet's `gap: 1rem`. */
export const CARD_GAP = 16;

/**
 * How many columns `.card-grid` lays out in `width` px: `repeat(auto-fill, minmax(min(100%, min),
 * 1fr))` fits as many `min`-wide columns as the width holds with a gap between each, and at least one.
 */
export function columnsFor(width: number, min: number, gap = CARD_GAP): number {
  return Math.max(1, Math.floor((width + gap) / (min + gap)));
}

/** Whether any of `texts` holds `search` (trimmed, any case); an empty search matches everything. */
export function matchesSearch(search: string, ...texts: readonly string[]): boolean {
  const needle = search.trim().toLowerCase();
  return needle === "" || texts.some((t) => t.toLowerCase().includes(needle));
}
