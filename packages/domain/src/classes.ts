import type { Class } from "./schemas";

/** SPEC §1's default set; the configuration may replace it. */
export const DEFAULT_CLASSES: readonly Class[] = [
  { name: "critical", rank: 300, description: "capacity the business cannot lose" },
  { name: "standard", rank: 200, description: "the default" },
  { name: "batch", rank: 100, description: "runs when there is room; preempted first" },
];

export const DEFAULT_CLASS = "standard";
/** Rank assumed for "standard" when the configured classes do not name it. */
export const DEFAULT_CLASS_RANK = 200;

/**
 * The rank of a class name. A name the class list does not know (a class removed from the
 * configuration while models still carry it) ranks as the default class: treating it as the
 * lowest would make those models everyone's victims over a typo.
 */
export function classRank(classes: readonly Class[], name: string): number {
  const found = classes.find((c) => c.name === name) ?? classes.find((c) => c.name === DEFAULT_CLASS);
  return found?.rank ?? DEFAULT_CLASS_RANK;
}

/** Whether a model of rank `a` may preempt a replica of rank `b`: strictly higher only. */
export function outranks(a: number, b: number): boolean {
  return a > b;
}
