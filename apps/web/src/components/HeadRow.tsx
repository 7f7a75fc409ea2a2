import type { ReactNode } from "react";

/**
 * The head of a table whose columns are plain labels. A column that shows only sometimes is given
 * as `cond && "Label"`, so the head keeps the same cells as the body rows. Cells that need more
 * than a label (a hidden one for a column of buttons) follow as children.
 */
export function HeadRow({
  columns,
  children,
}: {
  columns: readonly (string | false | null)[];
  children?: ReactNode;
}) {
  return (
    <thead>
      <tr>
        {columns.map(
          (label) =>
            label && (
              <th key={label} scope="col">
                {label}
              </th>
            ),
        )}
        {children}
      </tr>
    </thead>
  );
}
