import type { ReactNode } from "react";

/**
 * A wide table that scrolls sideways on a narrow screen. The region takes focus so a keyboard can
 * scroll it too, and is named so a screen reader says what it holds.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section className="table-scroll" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
