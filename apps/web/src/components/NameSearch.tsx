import type { ReactNode } from "react";

type Props = {
  id: string;
  /** What is searched, for the search landmark: "the nodes". */
  what: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  /** "12 of 2000 nodes": said to screen readers as it changes. */
  count: string;
  testId: string;
  /** More filters beside the search box (needs attention, state). */
  children?: ReactNode;
};

/** A search box over a long list, and how many of the list it shows. */
export function NameSearch({ id, what, placeholder, value, onChange, count, testId, children }: Props) {
  return (
    <>
      <search className="filters" aria-label={`Search ${what}`}>
        <div className="field">
          <label htmlFor={id}>Search</label>
          <input
            id={id}
            type="search"
            placeholder={placeholder}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        </div>
        {children}
      </search>
      <p className="muted" role="status" data-testid={testId}>
        {count}
      </p>
    </>
  );
}

/** "500 models", or "3 of 500 models" while a search hides some. */
export function countText(shown: number, all: number, noun: string): string {
  return shown === all ? `${all} ${noun}` : `${shown} of ${all} ${noun}`;
}
