import { type ReactNode, useEffect, useRef, useState } from "react";

/** Which sides hold more of the table than the region shows. */
type More = { left: boolean; right: boolean };

/** A pixel of slack: a zoomed page reports fractional scroll positions. */
const SLACK = 1;

/**
 * A wide table that scrolls sideways on a narrow screen. The region takes focus so a keyboard can
 * scroll it too, and is named so a screen reader says what it holds. A shade on a side says more
 * of the table is there (`data-more-left`, `data-more-right`): a phone shows no scroll bar.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  const region = useRef<HTMLElement>(null);
  const [more, setMore] = useState<More>({ left: false, right: false });

  useEffect(() => {
    const el = region.current;
    if (!el) return;
    const measure = () => {
      const left = el.scrollLeft > SLACK;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - SLACK;
      setMore((was) => (was.left === left && was.right === right ? was : { left, right }));
    };
    measure();
    el.addEventListener("scroll", measure, { passive: true });
    // The region narrows with the screen, and the table widens as rows arrive.
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    for (const child of el.children) resized.observe(child);
    return () => {
      el.removeEventListener("scroll", measure);
      resized.disconnect();
    };
  }, []);

  return (
    <div
      className="table-scroll-frame"
      data-more-left={more.left || undefined}
      data-more-right={more.right || undefined}
    >
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1) */}
      <section className="table-scroll" tabIndex={0} aria-label={label} ref={region}>
        {children}
      </section>
    </div>
  );
}
