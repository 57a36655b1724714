import type { HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, Outlet, useLoaderData, useRouteError } from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import { boundary } from "@shopify/shopify-app-remix/server";
import { env } from "../platform/env.server";
import { t } from "../i18n";
import { authenticate } from "../shopify.server";

// The embedded admin's frame: App Bridge, Polaris, and the app's navigation in Shopify's sidebar.

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticate.admin(request);
  // The client id is public (it is in every embedded app's script tag); nothing else goes out here.
  return json({ apiKey: env().SHOPIFY_API_KEY });
};

export default function App() {
  const { apiKey } = useLoaderData<typeof loader>();
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey}>
      <NavMenu>
        <Link to="/app" rel="home">
          {t("nav.dashboard")}
        </Link>
        <Link to="/app/commissions">{t("nav.commissions")}</Link>
        <Link to="/app/codes">{t("nav.codes")}</Link>
        <Link to="/app/creators">{t("nav.creators")}</Link>
        <Link to="/app/payouts">{t("nav.payouts")}</Link>
        <Link to="/app/settings">{t("nav.settings")}</Link>
      </NavMenu>
      <Outlet />
    </AppProvider>
  );
}

// Shopify's embedded auth redirects by throwing responses; boundary.error lets them through.
export function ErrorBoundary() {
  return boundary.error(useRouteError());
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
