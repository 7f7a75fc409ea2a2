import { setSearchParam } from "../lib/router";

/** The address's `attention=1`: a list shows only what needs attention, and a link can ask for it. */
export const ATTENTION_PARAM = "attention";

export function attentionAsked(search: URLSearchParams): boolean {
  return search.get(ATTENTION_PARAM) === "1";
}

/** "Needs attention only": kept in the address, so the health line's links and a reload keep it. */
export function AttentionToggle({ id, checked }: { id: string; checked: boolean }) {
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => setSearchParam(ATTENTION_PARAM, e.target.checked ? "1" : null)}
      />
      <label htmlFor={id}>Needs attention only</label>
    </div>
  );
}

/** The address's `order=attention`: what needs attention first, the list's own order otherwise. */
export const ORDER_PARAM = "order";

export function attentionFirstAsked(search: URLSearchParams): boolean {
  return search.get(ORDER_PARAM) === "attention";
}

/** Those that need attention first, each group in the order it came (a stable sort). */
export function attentionFirst<T>(items: readonly T[], needs: (item: T) => boolean): T[] {
  const [first, rest]: [T[], T[]] = [[], []];
  for (const item of items) (needs(item) ? first : rest).push(item);
  return [...first, ...rest];
}

export function OrderSelect({ id, attention }: { id: string; attention: boolean }) {
  return (
    <div className="field">
      <label htmlFor={id}>Sort by</label>
      <select
        id={id}
        value={attention ? "attention" : ""}
        onChange={(e) => setSearchParam(ORDER_PARAM, e.target.value)}
      >
        <option value="">Name</option>
        <option value="attention">Needs attention first</option>
      </select>
    </div>
  );
}
