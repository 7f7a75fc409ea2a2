import { defaultRangeExtractor, useWindowVirtualizer } from "@tanstack/react-virtual";
import { Fragment, useLayoutEffect, useRef, useState } from "react";
import { CARD_GAP, columnsFor } from "../lib/grid";
import type { CardsProps } from "./cards";

/**
 * A long list of cards (more than DRAW_ALL_UP_TO), only the rows near the window's view in the DOM
 * (TanStack Virtual, on the page's own scroll, so the page reads and scrolls as before). With 2,000 nodes or 500 models
 * on a page, rendering every card made each keystroke and each event cost a frame or more.
 * Rows are measured once drawn, so cards keep their natural height. Tabbing through the cards
 * still works: a focused card is scrolled into view, and the rows after it are drawn.
 */
export function WindowedCards<T>(props: CardsProps<T>) {
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
