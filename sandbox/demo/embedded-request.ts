import { BROWSER_USER_AGENT } from "../storefront/chromium";

/**
 * A data request to one of the app's admin routes (`/app/<page>`) as the embedded admin sends it:
 * Remix's `_data` for the route, the session token App Bridge adds, a browser's user agent (the
 * library answers a bot 410). A form is POSTed to the route's action; none GETs its loader.
 */
export function embeddedRequest(
  appUrl: string,
  page: string,
  sessionToken: string,
  form?: URLSearchParams,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${appUrl}/app/${page}?_data=${encodeURIComponent(`routes/app.${page}`)}`, {
    method: form ? "POST" : "GET",
    headers: {
      authorization: `Bearer ${sessionToken}`,
      "user-agent": BROWSER_USER_AGENT,
      ...(form && { "content-type": "application/x-www-form-urlencoded" }),
    },
    ...(form && { body: form }),
    ...(signal && { signal }),
  });
}
