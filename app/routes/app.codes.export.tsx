import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { codesCsvStream } from "../codes/codes-csv";
import { codesPage } from "../codes/codes-page.server";
import { authenticate } from "../shopify.server";

// CSV of the Codes page as filtered (its rows are capped like the page's).
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const page = await codesPage(session.shop, new URL(request.url).searchParams);
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(createReadableStreamFromReadable(codesCsvStream(page.rows)), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="codes-${stamp}.csv"`,
      "Cache-Control": "no-store",
    },
  });
};
