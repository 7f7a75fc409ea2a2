import { readFileSync } from "node:fs";
import { join } from "node:path";

// What a "SPEC §x" in the source can point at (test/spec.test.ts): docs/SPEC.md's sections
// (`## 7.`), subsections (`### 2.4`) and numbered items (`7.` under `## 9.` is §9.7, `5.` under
// `### 2.2` is §2.2.5, `5a.` under `## 7.` is §7.5a).

/** Every anchor a citation may name in a spec's text: `7`, `2.4`, `9.5`, `2.2.5`, `7.1a`. */
export function anchorsOf(spec: string): Set<string> {
  const anchors = new Set<string>();
  let section: string | null = null;
  let sub: string | null = null;
  for (const line of spec.split("\n")) {
    const heading = /^## (\d+)\.\s/.exec(line);
    if (heading?.[1]) {
      section = heading[1];
      sub = null;
      anchors.add(section);
      continue;
    }
    const subheading = /^### (\d+\.\d+)\s/.exec(line);
    if (subheading?.[1]) {
      sub = subheading[1];
      anchors.add(sub);
      continue;
    }
    const item = /^(\d+[a-z]?)\.\s/.exec(line);
    const under = sub ?? section;
    if (item?.[1] && under !== null) anchors.add(`${under}.${item[1]}`);
  }
  return anchors;
}

/** `§9.1`, `§9.1–9.2` (both ends), `§1–§3`; not another document's (`RFC 9110 §14`). */
const CITATION = /§(\d+(?:\.\d+[a-z]?)*)(?:[–-](\d+(?:\.\d+[a-z]?)*)\b)?/g;
const ANOTHER_DOCUMENT = /RFC\s*\d+[\s,]*$/;

/** Each citation in a text, with its line number. */
export function citationsIn(text: string): { line: number; anchor: string }[] {
  const found: { line: number; anchor: string }[] = [];
  text.split("\n").forEach((line, i) => {
    for (const match of line.matchAll(CITATION)) {
      if (ANOTHER_DOCUMENT.test(line.slice(0, match.index))) continue;
      for (const anchor of [match[1], match[2]]) if (anchor) found.push({ line: i + 1, anchor });
    }
  });
  return found;
}

/** `file:line §x` for each citation in the files that names nothing in the spec. */
export function unresolved(root: string, files: readonly string[], spec: string): string[] {
  const anchors = anchorsOf(spec);
  return files.flatMap((file) =>
    citationsIn(readFileSync(join(root, file), "utf8"))
      .filter(({ anchor }) => !anchors.has(anchor))
      .map(({ line, anchor }) => `${file}:${line} §${anchor}`),
  );
}
