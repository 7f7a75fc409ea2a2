/**
 * Plain code-point order: what the store's `collate "C"` lists by, the same on every machine and
 * locale. Lists read from the store and lists patched in memory sort alike by it, and "the first
 * file" or "the oldest replica" means one thing everywhere.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
