import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

// Import circles among files (test/layering.test.ts): which file imports which, relative imports
// and type-only ones included, and the groups of files that reach each other through them.

/** Every specifier a file imports or re-exports: `from "…"`, `import "…"`, `import("…")`. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

/** The file a relative specifier names, as TypeScript resolves it (`./x.js` is `./x.ts`); null outside the set. */
function resolve(from: string, specifier: string, files: ReadonlySet<string>): string | null {
  const base = normalize(join(dirname(from), specifier.replace(/\.js$/, "")));
  for (const extension of EXTENSIONS) if (files.has(`${base}${extension}`)) return `${base}${extension}`;
  return null;
}

/** Each file's imports among `files` (relative to `root`). A package's imports by name leave the set. */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8") : "";
    const targets = [...text.matchAll(SPECIFIER)]
      .map((m) => m[1] ?? "")
      .filter((s) => s.startsWith("."))
      .flatMap((s) => resolve(file, s, known) ?? []);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The circles: each group of two or more files that all reach one another (a strongly connected
 * component, Tarjan's), or a file that imports itself; files sorted, groups by their first file.
 */
export function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; edge: number }[] = [{ file: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      if (!top) break;
      const edges = graph.get(top.file) ?? [];
      const to = edges[top.edge++];
      if (to !== undefined) {
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.file, Math.min(low.get(top.file) ?? 0, index.get(to) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file) ?? 0, low.get(top.file) ?? 0));
      if (low.get(top.file) !== index.get(top.file)) continue;
      const group: string[] = [];
      for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
        onStack.delete(file);
        group.push(file);
        if (file === top.file) break;
      }
      if (group.length > 1 || edges.includes(top.file)) circles.push(group.sort());
    }
  }
  return circles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** A circle the code still has, named by one of its files, and how many files it may hold at most. */
export type KnownCircle = { through: string; atMost: number };

/**
 * What is wrong with the circles against the known list, which may only shrink: a circle through
 * no listed file is new; a listed one that grew is worse; a listed file in no circle any more is
 * gone, and its line must go too.
 */
export function circlesAgainst(circles: readonly string[][], known: readonly KnownCircle[]): string[] {
  const problems: string[] = [];
  for (const circle of circles) {
    const listed = known.find((k) => circle.includes(k.through));
    if (!listed) problems.push(`new circle: ${circle.join(" ↔ ")}`);
    else if (circle.length > listed.atMost)
      problems.push(
        `the circle through ${listed.through} grew to ${circle.length} files: ${circle.join(" ↔ ")}`,
      );
  }
  for (const { through } of known) {
    if (!circles.some((circle) => circle.includes(through)))
      problems.push(`${through} is in no circle any more: take it off the known list`);
  }
  return problems;
}
