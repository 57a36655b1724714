import type { HeadersFunction, LoaderFunctionArgs, MetaArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { isRouteErrorResponse, Link, Outlet, useLoaderData, useRouteError } from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import { boundary } from "@shopify/shopify-app-remix/server";
import { env } from "../platform/env.server";
import { localePath, polarisTranslations, t } from "../i18n";
import { authenticate } from "../shopify.server";

// The embedded admin's frame: App Bridge, Polaris, and the app's navigation in Shopify's sidebar.

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

// Each page names itself; this one stands only when the frame's own loader failed, and then the
// tab says what the page says.
export const meta = ({ error }: MetaArgs) =>
  isRouteErrorResponse(error) && error.status === 503
    ? [{ title: t("common.databaseUnavailableTitle") }]
    : [{ title: t("meta.app") }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticate.admin(request);
  // The client id is public (it is in every embedded app's script tag); nothing else goes out here.
  return json({ apiKey: env().SHOPIFY_API_KEY });
};

export default function App() {
  const { apiKey } = useLoaderData<typeof loader>();
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey} i18n={polarisTranslations()}>
      <NavMenu>
        <Link to={localePath("/app")} rel="home">
          {t("nav.dashboard")}
        </Link>
        <Link to={localePath("/app/commissions")}>{t("nav.commissions")}</Link>
        <Link to={localePath("/app/codes")}>{t("nav.codes")}</Link>
        <Link to={localePath("/app/creators")}>{t("nav.creators")}</Link>
        <Link to={localePath("/app/payouts")}>{t("nav.payouts")}</Link>
        <Link to={localePath("/app/settings")}>{t("nav.settings")}</Link>
      </NavMenu>
      {/* Polaris' Page renders no landmark (its Frame would, but the admin is Shopify's frame):
          one <main> here gives every page, its error state included, the landmark to skip to. */}
      <main>
        <Outlet />
      </main>
    </AppProvider>
  );
}

// Shopify's embedded auth redirects by throwing responses; boundary.error lets them through.
// A database that does not answer is said plainly (sessions/admin-request.server.ts), without
// Polaris: its provider is this layout's own, which did not render.
export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 503)
    return (
      <main style={{ fontFamily: "system-ui, sans-serif", padding: "2rem", maxWidth: "40rem" }}>
        <h1 style={{ fontSize: "1.25rem" }}>{t("common.databaseUnavailableTitle")}</h1>
        <p>{t("common.databaseUnavailableBody")}</p>
      </main>
    );
  return boundary.error(error);
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
