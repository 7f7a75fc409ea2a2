import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { boardModels, initialFilter } from "./board";

describe("boardModels", () => {
  const roomy = makeView({ class: "batch", owner: "research", headroom: { total: 5 } });
  const tight = makeView({ class: "critical", owner: "ops", headroom: { total: 1 } });
  const unknown = makeView({ headroom: { total: null, limitedBy: "unknown-need" } });
  const all = [tight, unknown, roomy];

  it("orders by headroom, a need nobody can count last", () => {
    const shown = boardModels(all, { ...initialFilter, sort: "headroom-desc" });
    expect(shown.map((m) => m.name)).toEqual([roomy.name, tight.name, unknown.name]);
  });

  it("filters by class and owner, and searches names", () => {
    expect(boardModels(all, { ...initialFilter, className: "critical" })).toEqual([tight]);
    expect(boardModels(all, { ...initialFilter, owner: "research" })).toEqual([roomy]);
    expect(boardModels(all, { ...initialFilter, search: tight.name.toUpperCase() })).toEqual([tight]);
  });
});
