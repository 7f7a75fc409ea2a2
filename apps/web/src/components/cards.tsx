import { Fragment, type ReactNode } from "react";

export type CardsProps<T> = {
  items: readonly T[];
  keyOf: (item: T) => string;
  render: (item: T) => ReactNode;
  /** A row's height before it is measured, in px. */
  estimate: number;
  /** Lay the cards out in columns at least this wide (`.card-grid`); one column without it. */
  minColumnWidth?: number;
  /** An item that stays in the DOM wherever the page is scrolled (the card a link points at). */
  keep?: number;
  className: string;
  testId: string;
};

/**
 * Up to this many cards every one is drawn: a catalogue or fleet of ordinary size stays one plain
 * grid, which the browser's find-in-page reads whole. Above it, only the rows near the view.
 */
export const DRAW_ALL_UP_TO = 120;

/** Every card in one grid: the stylesheet's `className` lays out its columns. */
export function AllCards<T>({ items, keyOf, render, className, testId }: CardsProps<T>) {
  return (
    <div data-testid={testId} className={className}>
      {items.map((item) => (
        <Fragment key={keyOf(item)}>{render(item)}</Fragment>
      ))}
    </div>
  );
}
