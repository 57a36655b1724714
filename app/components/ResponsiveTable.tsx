import { DataTable, type DataTableProps } from "@shopify/polaris";
import type { ReactNode } from "react";
import "./ResponsiveTable.css";

export interface ResponsiveTableProps extends DataTableProps {
  /** The column that names each row in the phone list (the others are listed under it). */
  titleColumn?: number;
}

/**
 * A Polaris DataTable on screens 490px and wider, and below that a list with one item per row:
 * its title column first, then each other column as "heading: value", so every cell, buttons
 * included, stays inside a phone's width. Both are in the server's HTML and CSS shows one
 * (ResponsiveTable.css); the hidden one is display:none, so neither assistive technology nor
 * keyboard focus meets a row twice. Takes DataTable's own props, so a page swaps one for the
 * other.
 */
export function ResponsiveTable({ titleColumn = 0, ...table }: ResponsiveTableProps) {
  return (
    <div className="TagGuard-ResponsiveTable">
      <div className="TagGuard-ResponsiveTable__table">
        <DataTable {...table} />
      </div>
      <ul className="TagGuard-ResponsiveTable__list">
        {table.rows.map((row, index) => (
          // Rows have no identity of their own here; their order is the table's.
          <li key={index} className="TagGuard-ResponsiveTable__item">
            <div className="TagGuard-ResponsiveTable__title">{row[titleColumn] as ReactNode}</div>
            <dl className="TagGuard-ResponsiveTable__fields">
              {row.map((cell, column) =>
                column === titleColumn || isBlank(cell) ? null : (
                  <div key={column} className="TagGuard-ResponsiveTable__field">
                    <dt>{table.headings[column]}</dt>
                    <dd>{cell as ReactNode}</dd>
                  </div>
                ),
              )}
            </dl>
          </li>
        ))}
      </ul>
    </div>
  );
}

// An empty cell is a blank line in a table, but in a list it would be a label with nothing.
function isBlank(cell: unknown): boolean {
  return cell === null || cell === undefined || cell === "" || cell === false;
}
