import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { ledgerCsvStream } from "../commissions/csv";
import { ledgerRecords, parseLedgerFilter } from "../commissions/ledger.server";
import { authenticate } from "../shopify.server";

// CSV of the ledger's filtered set, streamed: rows are read in keyset batches as the client reads.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const filter = parseLedgerFilter(new URL(request.url).searchParams);
  const stream = ledgerCsvStream(ledgerRecords(session.shop, filter));
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(createReadableStreamFromReadable(stream), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="commissions-${stamp}.csv"`,
      "Cache-Control": "no-store",
    },
  });
};
