import type { HeadroomSummary, ModelSummary } from "@llmgw/domain";
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

export type BoardSort = "name" | "headroom-desc" | "headroom-asc";
export type BoardFilter = { search: string; className: string; owner: string; sort: BoardSort };

export const ALL = "";
export const initialFilter: BoardFilter = { search: "", className: ALL, owner: ALL, sort: "name" };

/** What a model could still gain; a need nobody can count sorts below every number. */
export function headroomOf(card: BoardCard): number {
  return card.headroom.total ?? -1;
}

export function shownCards(cards: readonly BoardCard[], filter: BoardFilter): BoardCard[] {
  const shown = cards.filter(
    ({ model: m }) =>
      (filter.className === ALL || m.class === filter.className) &&
      (filter.owner === ALL || m.owner === filter.owner) &&
      matchesSearch(filter.search, m.name, ...m.aliases, m.description),
  );
  const byName = (a: BoardCard, b: BoardCard) => a.model.name.localeCompare(b.model.name);
  switch (filter.sort) {
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
