import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable, json } from "@remix-run/node";
import { payoutCsvStream } from "../commissions/csv";
import { payoutRows } from "../commissions/payout-history.server";
import { authenticate } from "../shopify.server";

// One payout as CSV: a row per creator and currency, for the merchant's payment run.
export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const payout = await payoutRows(session.shop, params.id ?? "");
  if (!payout) throw json({ message: "not found" }, { status: 404 });
  return new Response(createReadableStreamFromReadable(payoutCsvStream(payout.rows)), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="payout-${payout.paidOn}.csv"`,
      "Cache-Control": "no-store",
    },
  });
};
