import {
  type Attention,
  type HeadroomSummary,
  type ModelSummary,
  modelAttention,
  type OverQuota,
} from "@llmgw/domain";
import { matchesSearch } from "../../lib/grid";

/** The capacity board's search, filters and order, as pure functions of the catalogue. */

/**
 * What one card shows: the model, and its headroom from the live headroom list (the model's own
 * view carries the headroom of when it was fetched, shown until that list has loaded). Both keep
 * their identity while unchanged, so a card whose model and headroom did not move is not rendered.
 */
export type BoardCard = { model: ModelSummary; headroom: HeadroomSummary };

export function boardCards(
  models: readonly ModelSummary[],
  headroom: readonly HeadroomSummary[] | undefined,
): BoardCard[] {
  const live = new Map(headroom?.map((h) => [h.model, h]));
  return models.map((model) => ({ model, headroom: live.get(model.name) ?? model.headroom }));
}

export type BoardSort = "name" | "attention" | "headroom-desc" | "headroom-asc";
export type BoardFilter = {
  search: string;
  className: string;
  owner: string;
  sort: BoardSort;
  /** Only the cards that need attention (the address's `attention=1`). */
  attention: boolean;
};

export const ALL = "";
export const initialFilter: BoardFilter = {
  search: "",
  className: ALL,
  owner: ALL,
  sort: "name",
  attention: false,
};

/**
 * What a card is marked with: the model's own attention, counted on its live headroom, and its
 * owner's quota when that is over. The card's marks and the board's filter read this one list.
 */
export function cardAttention(card: BoardCard, overQuota: string | undefined): Attention[] {
  return modelAttention({ ...card.model, headroom: card.headroom }, overQuota);
}

/** What a model could still gain; a need nobody can count sorts below every number. */
export function headroomOf(card: BoardCard): number {
  return card.headroom.total ?? -1;
}

export function shownCards(
  cards: readonly BoardCard[],
  filter: BoardFilter,
  overQuota: OverQuota = new Map(),
): BoardCard[] {
  // Counted only when asked for: the name and headroom orders need none of it.
  const counted = filter.attention || filter.sort === "attention";
  const marks = new Map(
    counted ? cards.map((c) => [c, cardAttention(c, overQuota.get(c.model.owner)).length]) : [],
  );
  const shown = cards.filter(
    (card) =>
      (filter.className === ALL || card.model.class === filter.className) &&
      (filter.owner === ALL || card.model.owner === filter.owner) &&
      (!filter.attention || (marks.get(card) ?? 0) > 0) &&
      matchesSearch(filter.search, card.model.name, ...card.model.aliases, card.model.description),
  );
  const byName = (a: BoardCard, b: BoardCard) => a.model.name.localeCompare(b.model.name);
  switch (filter.sort) {
    case "attention":
      return shown.sort((a, b) => (marks.get(b) ?? 0) - (marks.get(a) ?? 0) || byName(a, b));
    case "headroom-desc":
      return shown.sort((a, b) => headroomOf(b) - headroomOf(a) || byName(a, b));
    case "headroom-asc":
      return shown.sort((a, b) => headroomOf(a) - headroomOf(b) || byName(a, b));
    default:
      return shown.sort(byName);
  }
}

/** Owners present in the catalogue, "" (unowned) included when some model has none. */
export function ownersOf(models: readonly ModelSummary[]): string[] {
  return [...new Set(models.map((m) => m.owner))].sort();
}

/** Whom preempting would stop, by class, most first: "batch ×2, standard ×1"; "" when nobody. */
export function victimsText(victimsByClass: Readonly<Record<string, number>>): string {
  return Object.entries(victimsByClass)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([c, n]) => `${c} ×${n}`)
    .join(", ");
}
