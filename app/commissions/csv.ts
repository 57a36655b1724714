import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { LedgerRow } from "./ledger.server";
import type { PayoutCsvRow } from "./payout-history.server";

// The ledger, and each payout, as CSV for a spreadsheet. csv-stringify does the RFC 4180 quoting (commas, quotes,
// newlines); we add the spreadsheet-injection guard: a cell that starts with = + - @, a tab or
// a carriage return would be read as a formula, so it gets a leading single quote. Tags and
// creator ids come from outside the shop (links, coupon extensions), so this matters.

export const CSV_COLUMNS = [
  { key: "createdAt", header: "Recorded at (UTC)" },
  { key: "orderName", header: "Order" },
  { key: "orderId", header: "Order ID" },
  { key: "creatorId", header: "Creator" },
  { key: "creatorName", header: "Creator name" },
  { key: "creatorEmail", header: "Creator email" },
  { key: "expectedTag", header: "Expected tag" },
  { key: "arrivedTag", header: "Arrived tag" },
  { key: "redirected", header: "Redirected" },
  { key: "orderValue", header: "Order value" },
  { key: "currency", header: "Currency" },
  { key: "rate", header: "Rate (%)" },
  { key: "amount", header: "Commission" },
  { key: "status", header: "Status" },
  { key: "entries", header: "Entries (kind amount)" },
] as const satisfies readonly { key: keyof LedgerRow; header: string }[];

const FORMULA_START = /^[=+\-@\t\r]/;

export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function toRecord(row: LedgerRow): string[] {
  return CSV_COLUMNS.map(({ key }) => {
    const value = row[key];
    if (typeof value === "boolean") return value ? "yes" : "no";
    return neutraliseCell(value == null ? "" : String(value));
  });
}

/** CSV text as a Node stream; rows are pulled from the iterable only as fast as the reader reads. */
export function ledgerCsvStream(rows: AsyncIterable<LedgerRow> | Iterable<LedgerRow>): Readable {
  return csvStream(
    CSV_COLUMNS.map((c) => c.header),
    (async function* () {
      for await (const row of rows) yield toRecord(row);
    })(),
  );
}

export const PAYOUT_CSV_COLUMNS = [
  { key: "reference", header: "Reference" },
  { key: "paidOn", header: "Date paid" },
  { key: "creatorId", header: "Creator" },
  { key: "creatorName", header: "Creator name" },
  { key: "creatorEmail", header: "Creator email" },
  { key: "amount", header: "Amount" },
  { key: "currency", header: "Currency" },
  { key: "records", header: "Records" },
  { key: "voidedAt", header: "Voided at (UTC)" },
  { key: "method", header: "Method" },
  { key: "providerId", header: "Provider id" },
] as const satisfies readonly { key: keyof PayoutCsvRow; header: string }[];

/** One row per creator and currency of a payout, guarded like the ledger's. */
export function payoutCsvStream(rows: Iterable<PayoutCsvRow>): Readable {
  return csvStream(
    PAYOUT_CSV_COLUMNS.map((c) => c.header),
    (function* () {
      for (const row of rows) yield PAYOUT_CSV_COLUMNS.map(({ key }) => neutraliseCell(String(row[key])));
    })(),
  );
}

function csvStream(headers: string[], records: AsyncIterable<string[]> | Iterable<string[]>): Readable {
  const source = Readable.from(records);
  const csv = stringify({ header: true, columns: headers, eof: true, record_delimiter: "windows" });
  source.on("error", (error) => csv.destroy(error));
  return source.pipe(csv);
}
