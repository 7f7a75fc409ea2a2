import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { boardCards, initialFilter, shownCards, victimsText } from "./board";

describe("shownCards", () => {
  const roomy = makeView({ class: "batch", owner: "research", headroom: { total: 5 } });
  const tight = makeView({ class: "critical", owner: "ops", headroom: { total: 1 } });
  const unknown = makeView({ headroom: { total: null, limitedBy: "unknown-need" } });
  const all = boardCards([tight, unknown, roomy], undefined);
  const names = (cards: { model: { name: string } }[]) => cards.map((c) => c.model.name);

  it("orders by headroom, a need nobody can count last", () => {
    const shown = shownCards(all, { ...initialFilter, sort: "headroom-desc" });
    expect(names(shown)).toEqual([roomy.name, tight.name, unknown.name]);
  });

  it("filters by class and owner, and searches names", () => {
    expect(names(shownCards(all, { ...initialFilter, className: "critical" }))).toEqual([tight.name]);
    expect(names(shownCards(all, { ...initialFilter, owner: "research" }))).toEqual([roomy.name]);
    expect(names(shownCards(all, { ...initialFilter, search: tight.name.toUpperCase() }))).toEqual([
      tight.name,
    ]);
  });
});

describe("boardCards", () => {
  it("takes each model's headroom from the live list, the model's own until the list has it", () => {
    const listed = makeView({ headroom: { total: 1 } });
    const unlisted = makeView({ headroom: { total: 2 } });
    const live = { ...listed.headroom, total: 7 };
    const cards = boardCards([listed, unlisted], [live]);
    expect(cards[0]?.headroom).toBe(live);
    expect(cards[1]?.headroom).toBe(unlisted.headroom);
  });

  it("keeps the model and headroom objects it was given, so unchanged cards can skip rendering", () => {
    const model = makeView();
    const [card] = boardCards([model], [model.headroom]);
    expect(card?.model).toBe(model);
    expect(card?.headroom).toBe(model.headroom);
  });
});

describe("victimsText", () => {
  it("names whom preempting stops, by class, most first", () => {
    expect(victimsText({ standard: 1, batch: 2, critical: 0 })).toBe("batch ×2, standard ×1");
    expect(victimsText({})).toBe("");
  });
});
