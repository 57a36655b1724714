import { Links, Meta, Outlet, Scripts, ScrollRestoration } from "@remix-run/react";
import { activeLocale, requestedLocale } from "./i18n";

// The document says its language, and the merchant's own tag for numbers and dates: the browser
// loads the same language before it hydrates (app/entry.client.tsx).
export default function App() {
  return (
    <html lang={activeLocale()} data-locale={requestedLocale()}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <link rel="preconnect" href="https://cdn.shopify.com/" />
        <link rel="stylesheet" href="https://cdn.shopify.com/static/fonts/inter/v4/styles.css" />
        <Meta />
        <Links />
      </head>
      <body>
        <Outlet />
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}
