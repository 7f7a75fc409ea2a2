import type { ReactNode } from "react";

/** The page's one h1, focused after navigation so screen readers announce where they are. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      {children && <div className="page-header-extra">{children}</div>}
    </div>
  );
}
