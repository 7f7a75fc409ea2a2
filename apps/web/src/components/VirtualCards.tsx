import { defaultRangeExtractor, useWindowVirtualizer } from "@tanstack/react-virtual";
import { Fragment, type ReactNode, useLayoutEffect, useRef, useState } from "react";
import { CARD_GAP, columnsFor } from "../lib/grid";

type Props<T> = {
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

export function VirtualCards<T>(props: Props<T>) {
  return props.items.length <= DRAW_ALL_UP_TO ? <AllCards {...props} /> : <WindowedCards {...props} />;
}

/** Every card in one grid: the stylesheet's `className` lays out its columns. */
function AllCards<T>({ items, keyOf, render, className, testId }: Props<T>) {
  return (
    <div data-testid={testId} className={className}>
      {items.map((item) => (
        <Fragment key={keyOf(item)}>{render(item)}</Fragment>
      ))}
    </div>
  );
}

/**
 * A long list of cards (more than DRAW_ALL_UP_TO), only the rows near the window's view in the DOM
 * (TanStack Virtual, on the page's own scroll, so the page reads and scrolls as before). With 2,000 nodes or 500 models
 * on a page, rendering every card made each keystroke and each event cost a frame or more.
 * Rows are measured once drawn, so cards keep their natural height. Tabbing through the cards
 * still works: a focused card is scrolled into view, and the rows after it are drawn.
 */
function WindowedCards<T>(props: Props<T>) {
  const { items, keyOf, render, estimate, minColumnWidth, keep, className, testId } = props;
  const list = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState({ top: 0, width: 0 });
  // Where the list starts on the page and how wide it is: what is above it can grow (a notice).
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    const measure = () => {
      const rect = element.getBoundingClientRect();
      const next = { top: Math.round(rect.top + window.scrollY), width: Math.round(rect.width) };
      setBox((held) => (held.top === next.top && held.width === next.width ? held : next));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.parentElement) observer.observe(element.parentElement);
    return () => observer.disconnect();
  }, []);

  const columns = minColumnWidth === undefined ? 1 : columnsFor(box.width, minColumnWidth);
  const keepRow = keep === undefined || keep < 0 ? null : Math.floor(keep / columns);
  const rowOf = (index: number) => items.slice(index * columns, (index + 1) * columns);
  const virtualizer = useWindowVirtualizer({
    count: Math.ceil(items.length / columns),
    estimateSize: () => estimate,
    gap: CARD_GAP,
    overscan: 3,
    // The window's size from the first render on, so the kept card is in the DOM when the page
    // moves focus to it (the virtualizer would otherwise draw nothing until it has measured).
    initialRect: { width: window.innerWidth, height: window.innerHeight },
    scrollMargin: box.top,
    getItemKey: (index) => rowOf(index).map(keyOf).join("\n"),
    rangeExtractor: (range) => {
      const rows = defaultRangeExtractor(range);
      return keepRow === null || rows.includes(keepRow) ? rows : [...rows, keepRow].sort((a, b) => a - b);
    },
  });

  return (
    <div ref={list} data-testid={testId} style={{ position: "relative", height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((row) => (
        <div
          key={row.key}
          data-index={row.index}
          ref={virtualizer.measureElement}
          className={className}
          style={{
            position: "absolute",
            top: 0,
            left: 0,
            width: "100%",
            transform: `translateY(${row.start - box.top}px)`,
            gridTemplateColumns: columns > 1 ? `repeat(${columns}, minmax(0, 1fr))` : undefined,
          }}
        >
          {rowOf(row.index).map((item) => (
            <Fragment key={keyOf(item)}>{render(item)}</Fragment>
          ))}
        </div>
      ))}
    </div>
  );
}
