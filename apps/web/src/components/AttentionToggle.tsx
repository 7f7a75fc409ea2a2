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
