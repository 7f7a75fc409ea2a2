import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchorsOf, citationsIn, unresolved } from "./specCitations";
import { shippedSources } from "./workspace";

// The contract the code cites is in the repository (docs/SPEC.md), so every "SPEC §x" in it can be
// followed from a clone; it is the product spec's copy (../shared/SPEC.md beside the checkout, where
// there is one), kept in step each round.

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SPEC = readFileSync(join(ROOT, "docs/SPEC.md"), "utf8");
const SHARED = join(ROOT, "../shared/SPEC.md");

describe("docs/SPEC.md", () => {
  it.runIf(existsSync(SHARED))("is the product spec's copy, word for word", () => {
    expect(SPEC === readFileSync(SHARED, "utf8"), "copy ../shared/SPEC.md to docs/SPEC.md").toBe(true);
  });

  it("holds every section, subsection and numbered item the shipped source cites", () => {
    const files = shippedSources(ROOT);
    // It does read the source, or the check below proves nothing.
    expect(files).toEqual(expect.arrayContaining(["apps/api/src/app.ts", "packages/domain/src/index.ts"]));
    expect(files.some((f) => f.endsWith(".test.ts"))).toBe(false);
    expect(unresolved(ROOT, files, SPEC)).toEqual([]);
  });
});

describe("the citation check itself", () => {
  const spec = [
    "## 2. Rules",
    "### 2.2 Serve plan",
    "1. Source",
    "5. Memory",
    "## 7. The request path",
    "1. **Routing.**",
    "1a. **Where the prompt is cached.**",
    "5a. **Not trusted.**",
    "   2. an indented list is not an item",
  ].join("\n");

  it("knows sections, subsections and numbered items under either", () => {
    expect([...anchorsOf(spec)].sort()).toEqual(["2", "2.2", "2.2.1", "2.2.5", "7", "7.1", "7.1a", "7.5a"]);
  });

  it("reads ranges at both ends and leaves other documents' sections alone", () => {
    const text = "SPEC §7.1a, §2.2.5–2.2.6 and §1–§3\n(RFC 9110 §13.1.2), RFC 6750 says so; SPEC §7";
    expect(citationsIn(text)).toEqual([
      { line: 1, anchor: "7.1a" },
      { line: 1, anchor: "2.2.5" },
      { line: 1, anchor: "2.2.6" },
      { line: 1, anchor: "1" },
      { line: 1, anchor: "3" },
      { line: 2, anchor: "7" },
    ]);
  });

  it("names each citation the spec does not hold, by file and line", () => {
    const root = fileURLToPath(new URL(".", import.meta.url));
    const here = "specCitations.ts";
    const cited = citationsIn(readFileSync(join(root, here), "utf8")).map((c) => c.anchor);
    expect(cited).toContain("9.7");
    expect(unresolved(root, [here], spec)).toContain(`${here}:5 §9.7`);
  });
});
