import { compareText, type Model, type Node, type Replica } from "@llmgw/domain";

// The sorted lists a snapshot keeps, and how a patch keeps them sorted without sorting them again.

// Code-point order, as the store lists them (`collate "C"`), so a patched list reads like a fresh one.
export const byName = (a: Node, b: Node) => compareText(a.name, b.name);
export const byModelName = (a: Model, b: Model) => compareText(a.name, b.name);
export const byId = (a: Replica, b: Replica) => compareText(a.id, b.id);

/** Where `name` is in `nodes` (sorted by name), by binary search, else by a scan; -1 when it is not. */
export function nodeIndex(nodes: readonly Node[], name: string): number {
  let low = 0;
  let high = nodes.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = nodes[mid]?.name ?? "";
    if (at === name) return mid;
    if (at < name) low = mid + 1;
    else high = mid - 1;
  }
  return nodes.findIndex((n) => n.name === name);
}

/** Two sorted lists as one, in one pass: what a batch adds to a long list is not a sort of it. */
function merged<T>(a: readonly T[], b: readonly T[], order: (x: T, y: T) => number): T[] {
  if (b.length === 0) return a.slice();
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && order(x, y) <= 0)) {
      out.push(x as T);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

export const mergedByName = (a: readonly Node[], b: readonly Node[]) => merged(a, b, byName);
export const mergedById = (a: readonly Replica[], b: readonly Replica[]) => merged(a, b, byId);

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
