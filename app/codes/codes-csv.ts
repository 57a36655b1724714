import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { neutraliseCell } from "../commissions/csv";
import type { CodeTotals } from "./code-totals.server";

// The Codes page as CSV. Codes come from coupon sites and extensions, so every cell gets the
// ledger export's spreadsheet-injection guard (a leading quote before = + - @, tab or CR).

export const CODE_CSV_COLUMNS = [
  { key: "code", header: "Code" },
  { key: "currency", header: "Currency" },
  { key: "orders", header: "Orders with a click" },
  { key: "hijacked", header: "Hijacked orders" },
  { key: "hijackedShare", header: "Share hijacked" },
  { key: "discountOnHijacked", header: "Discount on hijacked orders" },
  { key: "redirectedOnHijacked", header: "Commission redirected" },
  { key: "firstHijackedAt", header: "First seen hijacked (UTC)" },
  { key: "lastHijackedAt", header: "Last seen hijacked (UTC)" },
  { key: "deactivation", header: "Switched off at (UTC)" },
] as const satisfies readonly { key: keyof CodeTotals; header: string }[];

function cell(row: CodeTotals, key: (typeof CODE_CSV_COLUMNS)[number]["key"]): string {
  if (key === "deactivation") return row.deactivation?.at ?? "";
  const value = row[key];
  return value == null ? "" : String(value);
}

export function codesCsvStream(rows: CodeTotals[]): Readable {
  const csv = stringify({
    header: true,
    columns: CODE_CSV_COLUMNS.map((c) => c.header),
    eof: true,
    record_delimiter: "windows",
  });
  return Readable.from(rows.map((row) => CODE_CSV_COLUMNS.map(({ key }) => neutraliseCell(cell(row, key))))).pipe(csv);
}
