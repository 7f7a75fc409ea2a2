import type { ModelView } from "@llmgw/domain";

/** The capacity board's search, filters and order, as pure functions of the catalogue. */

export type BoardSort = "name" | "headroom-desc" | "headroom-asc";
export type BoardFilter = { search: string; className: string; owner: string; sort: BoardSort };

export const ALL = "";
export const initialFilter: BoardFilter = { search: "", className: ALL, owner: ALL, sort: "name" };

/** What a model could still gain; a need nobody can count sorts below every number. */
export function headroomOf(model: ModelView): number {
  return model.headroom.total ?? -1;
}

export function boardModels(models: readonly ModelView[], filter: BoardFilter): ModelView[] {
  const needle = filter.search.trim().toLowerCase();
  const shown = models.filter(
    (m) =>
      (filter.className === ALL || m.class === filter.className) &&
      (filter.owner === ALL || m.owner === filter.owner) &&
      (needle === "" ||
        m.name.toLowerCase().includes(needle) ||
        m.aliases.some((a) => a.toLowerCase().includes(needle)) ||
        m.description.toLowerCase().includes(needle)),
  );
  const byName = (a: ModelView, b: ModelView) => a.name.localeCompare(b.name);
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
export function ownersOf(models: readonly ModelView[]): string[] {
  return [...new Set(models.map((m) => m.owner))].sort();
}
