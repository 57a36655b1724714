import { useLocation } from "@remix-run/react";

/** The query Shopify admin opens the embedded app with: a page reached without it opens outside the admin. */
const EMBEDDED_PARAMS = ["embedded", "shop", "host", "locale"];

/**
 * Hidden fields for a filter form (method get): the embedded app's own parameters ride along
 * with the filters, so the filtered page still opens inside Shopify admin.
 */
export function EmbeddedQueryFields() {
  const location = useLocation();
  return EMBEDDED_PARAMS.map((name) => {
    const value = new URLSearchParams(location.search).get(name);
    return value ? <input key={name} type="hidden" name={name} value={value} /> : null;
  });
}
