import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { codesCsvStream } from "../codes/codes-csv";
import { parseCodeFilter } from "../codes/code-filter";
import { codeTotals } from "../codes/code-totals.server";
import { authenticate } from "../shopify.server";

// CSV of the Codes page as filtered (its rows are capped like the page's). The file keeps its
// machine text ("USD 12.50", UTC ISO times) whatever the merchant's locale: codeTotals' default.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const rows = await codeTotals(session.shop, parseCodeFilter(new URL(request.url).searchParams));
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(createReadableStreamFromReadable(codesCsvStream(rows)), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="codes-${stamp}.csv"`,
      "Cache-Control": "no-store",
    },
  });
};
