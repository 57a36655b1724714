import { Banner, Layout, Page, Text } from "@shopify/polaris";
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { boundary } from "@shopify/shopify-app-remix/server";
import { localePath, t } from "../i18n";

/** A route's error state: what happened and what to do, never a stack trace. */
export function PageError({ notFoundBody }: { notFoundBody?: string }) {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  // Auth responses (bounce page, exit-iframe, 401) are Shopify's to render.
  if (isRouteErrorResponse(error) && !notFound) return boundary.error(error);
  return (
    <Page
      backAction={{ content: t("common.back"), url: localePath("/app") }}
      title={notFound ? t("common.notFoundTitle") : t("common.errorTitle")}
    >
      <Layout>
        <Layout.Section>
          <Banner tone={notFound ? "info" : "critical"}>
            <Text as="p">
              {notFound
                ? (notFoundBody ?? t("common.notFoundBody"))
                : t("common.errorBody", { time: new Date().toISOString() })}
            </Text>
          </Banner>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
