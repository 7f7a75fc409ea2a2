import { describe, expect, it } from "vitest";
import { makeView } from "../../testing/views";
import { boardCards, cardAttention, initialFilter, shownCards, victimsText } from "./board";

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

describe("needs attention on the board", () => {
  // An always-on model that wants 2 and runs 1; one that has what it wants.
  const short = makeView({
    name: "m-short",
    owner: "ops",
    scaling: { min: 2, max: 2, idleTimeoutSeconds: 600 },
    headroom: { current: 1 },
  });
  const fine = makeView({
    name: "m-fine",
    owner: "research",
    scaling: { min: 1, max: 1, idleTimeoutSeconds: 600 },
    headroom: { current: 1 },
  });
  const cards = boardCards([fine, short], undefined);
  const names = (shown: { model: { name: string } }[]) => shown.map((c) => c.model.name);

  it("marks a card short of wanted, counted on the live headroom, and its owner over quota", () => {
    const [fineCard, shortCard] = cards;
    if (!fineCard || !shortCard) throw new Error("two cards");
    expect(cardAttention(shortCard, undefined).map((a) => a.kind)).toEqual(["short"]);
    expect(cardAttention(fineCard, undefined)).toEqual([]);
    expect(cardAttention(fineCard, "research is over its quota").map((a) => a.kind)).toEqual(["over-quota"]);
    // Once the live headroom says it runs both, it is no longer short.
    const [live] = boardCards([short], [{ ...short.headroom, current: 2 }]);
    if (!live) throw new Error("one card");
    expect(cardAttention(live, undefined)).toEqual([]);
  });

  it("filters to the cards that need attention, and sorts them first", () => {
    expect(names(shownCards(cards, { ...initialFilter, attention: true }))).toEqual(["m-short"]);
    const over = new Map([["research", "research is over its quota: replicas 3 of 2"]]);
    expect(names(shownCards(cards, { ...initialFilter, attention: true }, over))).toEqual([
      "m-fine",
      "m-short",
    ]);
    expect(names(shownCards(cards, { ...initialFilter, sort: "attention" }))).toEqual(["m-short", "m-fine"]);
  });
});
