import type { Class, ClassUsage } from "@llmgw/domain";

/**
 * Each class gets one colour everywhere (the fleet totals, a node's bars, a card's badge): the
 * highest rank first in the palette, replicas of unknown models in grey. The palette lives in
 * styles.css as --tone-0 … --tone-5.
 */

export const UNMANAGED = "unmanaged";
const PALETTE_SIZE = 6;

export function byRank(classes: readonly Class[]): Class[] {
  return [...classes].sort((a, b) => b.rank - a.rank || a.name.localeCompare(b.name));
}

export function classTone(name: string, classes: readonly Class[]): string {
  if (name === UNMANAGED) return "var(--tone-unmanaged)";
  const index = byRank(classes).findIndex((c) => c.name === name);
  if (index < 0) return "var(--tone-unknown)";
  return `var(--tone-${index % PALETTE_SIZE})`;
}

/** Usage rows in rank order, highest first, with replicas of unknown models last. */
export function orderedUsage(usage: readonly ClassUsage[], classes: readonly Class[]): ClassUsage[] {
  const order = byRank(classes).map((c) => c.name);
  const position = (name: string) => {
    if (name === UNMANAGED) return order.length + 1;
    const index = order.indexOf(name);
    return index >= 0 ? index : order.length;
  };
  return [...usage].sort((a, b) => position(a.class) - position(b.class) || a.class.localeCompare(b.class));
}
