import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Box,
  Card,
  EmptyState,
  InlineGrid,
  Layout,
  Link,
  Page,
  Select,
  SkeletonBodyText,
  Text,
} from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { OutcomeBadge } from "../components/OutcomeBadge";
import { PageError } from "../components/PageError";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { SectionCard } from "../components/SectionCard";
import { SplitRow } from "../components/SplitRow";
import { formatTime } from "../units/times";
import { getDashboard } from "../dashboard/dashboard.server";
import { getSetupStatus } from "../dashboard/setup.server";
import { EmbedBanner, SetupGuide, useEmbedStatus } from "../components/SetupGuide";
import { parsePeriod, PERIODS } from "../units/periods";
import { t } from "../i18n";
import { OUTCOMES } from "../verification/outcomes";
import { authenticate } from "../shopify.server";

export const meta = adminMeta(t("dashboard.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const period = parsePeriod(new URL(request.url).searchParams.get("days"));
  const [dashboard, setup] = await Promise.all([
    getDashboard(session.shop, period),
    getSetupStatus(session.shop, admin.graphql),
  ]);
  return json({ ...dashboard, setup });
};

// Invalid deliveries never become orders to verify: they are counted on the delivery, not here.
const COUNT_KEYS = ["verified", ...OUTCOMES.filter((outcome) => outcome !== "invalid")] as const;

/** The coverage card: each witness (decision 030), then the orders with none. */
const COVERAGE = [
  ["landing", "dashboard.coverageLanding"],
  ["pixel", "dashboard.coveragePixel"],
  ["cart_attributes", "dashboard.coverageCart"],
  ["landing_site", "dashboard.coverageLandingSite"],
  ["none", "dashboard.coverageNone"],
] as const;

export default function DashboardPage() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [searchParams, setSearchParams] = useSearchParams();
  const loading = navigation.state === "loading" && navigation.location?.pathname === "/app";
  const embed = useEmbedStatus();
  const guide = (
    <SetupGuide
      status={data.setup}
      embed={embed}
      themeEditorUrl={data.themeEditorUrl}
      captureNotSeen={data.banners.captureNotSeen}
    />
  );

  if (!data.configured) {
    return (
      <Page title={t("dashboard.title")}>
        <Layout>
          <Layout.Section>{guide}</Layout.Section>
          <Layout.Section>
            <Card>
              <EmptyState
                heading={t("dashboard.emptyHeading")}
                action={{ content: t("dashboard.emptyAction"), url: "/app/settings" }}
                image="data:image/gif;base64,R0lGODlhAQABAAAAACw="
              >
                <p>{t("dashboard.emptyBody")}</p>
              </EmptyState>
            </Card>
          </Layout.Section>
        </Layout>
      </Page>
    );
  }

  const periodSelect = (
    <Select
      label={t("period.label")}
      labelInline
      options={PERIODS.map((days) => ({ label: t("period.option", { days }), value: String(days) }))}
      value={String(data.period)}
      onChange={(value) => {
        const next = new URLSearchParams(searchParams);
        next.set("days", value);
        setSearchParams(next);
      }}
    />
  );

  const rows = data.recent.map((row) => [
    <Link key="order" url={`shopify://admin/orders/${row.orderId}`} target="_top">
      {row.orderName ?? `#${row.orderId}`}
    </Link>,
    <OutcomeBadge key="outcome" outcome={row.outcome} />,
    row.expectedTag ?? t("common.none"),
    row.arrivedTag ?? t("common.none"),
    row.creatorId ?? t("common.none"),
    formatTime(row.createdAt),
    <RemixLink key="detail" to={`/app/orders/${row.id}`}>
      {t("dashboard.details")}
    </RemixLink>,
  ]);

  return (
    <AdminPage title={t("dashboard.title")} primaryAction={periodSelect}>
      {data.banners.credentialsRejectedAt ? (
        <Banner
          tone="critical"
          title={t("dashboard.bannerKeyTitle")}
          action={{ content: t("dashboard.bannerKeyAction"), url: "/app/settings" }}
        >
          <Text as="p">{t("dashboard.bannerKeyBody", { time: formatTime(data.banners.credentialsRejectedAt) })}</Text>
        </Banner>
      ) : null}
      {data.banners.failing > 0 ? (
        <Banner
          tone="warning"
          title={t("dashboard.bannerFailingTitle", { count: data.banners.failing })}
          action={{ content: t("dashboard.bannerFailingAction"), url: "/app/settings" }}
        >
          <Text as="p">{t("dashboard.bannerFailingBody")}</Text>
        </Banner>
      ) : null}
      <EmbedBanner
        status={embed}
        captureNotSeen={data.banners.captureNotSeen}
        themeEditorUrl={data.themeEditorUrl}
        days={data.period}
      />
      {guide}

      {loading ? (
        <Card>
          <SkeletonBodyText lines={6} />
        </Card>
      ) : (
        <>
          <SectionCard title={t("dashboard.counts", { days: data.period })} gap="300">
            <InlineGrid columns={{ xs: 2, md: 4 }} gap="300">
              {COUNT_KEYS.map((key) => (
                <Box key={key} padding="200" background="bg-surface-secondary" borderRadius="200">
                  <BlockStack gap="100">
                    <Text as="span" tone="subdued">
                      {key === "verified" ? t("dashboard.verified") : t(`outcome.${key}`)}
                    </Text>
                    <Text as="span" variant="headingLg" id={`count-${key}`}>
                      {data.counts[key]}
                    </Text>
                  </BlockStack>
                </Box>
              ))}
            </InlineGrid>
            {data.counts.inProgress > 0 ? (
              <Text as="p" tone="subdued">
                {t("dashboard.inProgress")}: {data.counts.inProgress}
              </Text>
            ) : null}
          </SectionCard>

          <InlineGrid columns={{ xs: 1, md: 3 }} gap="400">
            <SectionCard title={t("dashboard.hijackRate")}>
              <Text as="p" variant="heading2xl">
                {data.hijackRate ?? t("common.none")}
              </Text>
              <Text as="p" tone="subdued">
                {data.hijackRate ? t("dashboard.hijackRateHelp") : t("dashboard.hijackRateNone")}
              </Text>
            </SectionCard>
            <SectionCard title={t("dashboard.redirected")}>
              {data.redirected.length === 0 ? (
                <EmptyNote>{t("dashboard.redirectedNone")}</EmptyNote>
              ) : (
                data.redirected.map((total) => (
                  <SplitRow
                    key={total.currency}
                    variant="headingLg"
                    note={t("dashboard.redirectedOrders", { count: total.orders })}
                  >
                    {total.total}
                  </SplitRow>
                ))
              )}
            </SectionCard>
            <SectionCard title={t("dashboard.topTags")}>
              {data.topArrivedTags.length === 0 ? (
                <EmptyNote>{t("dashboard.topTagsNone")}</EmptyNote>
              ) : (
                data.topArrivedTags.map((tag) => (
                  <SplitRow key={tag.tag} note={tag.orders}>
                    {tag.tag || t("dashboard.strippedTag")}
                  </SplitRow>
                ))
              )}
            </SectionCard>
          </InlineGrid>

          <SectionCard title={t("dashboard.topCodes")}>
            {data.topCodes.length === 0 ? (
              <EmptyNote>{t("dashboard.topCodesNone")}</EmptyNote>
            ) : (
              data.topCodes.map((code) => (
                <SplitRow
                  key={`${code.code} ${code.currency}`}
                  note={t("dashboard.topCodeNote", { count: code.hijacked, discount: code.discountOnHijacked })}
                >
                  {code.code}
                </SplitRow>
              ))
            )}
            <RemixLink to={`/app/codes?days=${data.period}`}>{t("dashboard.topCodesLink")}</RemixLink>
          </SectionCard>

          <SectionCard title={t("dashboard.landingTitle")}>
            <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
              <SplitRow variant="headingLg" note={t("dashboard.savedFromExpiryHelp")}>
                <span id="count-saved-from-expiry">
                  {t("dashboard.savedFromExpiry", { count: data.landing.savedFromExpiry })}
                </span>
              </SplitRow>
              <SplitRow variant="headingLg" note={t("dashboard.tamperedHelp")}>
                <span id="count-tampered">{t("dashboard.tampered", { count: data.landing.tampered })}</span>
              </SplitRow>
            </InlineGrid>
          </SectionCard>

          <SectionCard title={t("dashboard.coverageTitle", { days: data.period })}>
            <Text as="p" tone="subdued">
              {t("dashboard.coverageHelp")}
            </Text>
            <InlineGrid columns={{ xs: 2, md: 5 }} gap="300">
              {COVERAGE.map(([key, label]) => (
                <Box key={key} padding="200" background="bg-surface-secondary" borderRadius="200">
                  <BlockStack gap="100">
                    <Text as="span" tone="subdued">
                      {t(label)}
                    </Text>
                    <Text as="span" variant="headingLg" id={`coverage-${key}`}>
                      {data.coverage[key]}
                    </Text>
                  </BlockStack>
                </Box>
              ))}
            </InlineGrid>
            {data.coverageByDay.length > 0 ? (
              <div id="coverage-by-day">
                <ResponsiveTable
                  columnContentTypes={["text", "numeric", "numeric", "numeric", "numeric", "numeric"]}
                  headings={[t("dashboard.coverageDay"), ...COVERAGE.map(([, label]) => t(label))]}
                  rows={data.coverageByDay.map((day) => [day.day, ...COVERAGE.map(([key]) => day[key])])}
                />
              </div>
            ) : null}
          </SectionCard>

          <Card padding="0">
            <Box padding="400">
              <Text as="h2" variant="headingMd">
                {t("dashboard.recent")}
              </Text>
            </Box>
            {rows.length === 0 ? (
              <Box padding="400">
                <EmptyNote>{t("dashboard.recentEmpty")}</EmptyNote>
              </Box>
            ) : (
              <ResponsiveTable
                columnContentTypes={["text", "text", "text", "text", "text", "text", "text"]}
                headings={[
                  t("dashboard.columnOrder"),
                  t("dashboard.columnOutcome"),
                  t("dashboard.columnExpected"),
                  t("dashboard.columnArrived"),
                  t("dashboard.columnCreator"),
                  t("dashboard.columnTime"),
                  t("dashboard.columnDetails"),
                ]}
                rows={rows}
              />
            )}
          </Card>
        </>
      )}

      <SectionCard title={t("dashboard.dataRequests")}>
        <Text as="p" tone="subdued">
          {t("dashboard.dataRequestsHelp")}
        </Text>
        {data.dataRequests.length === 0 ? (
          <Text as="p">{t("dashboard.dataRequestsEmpty")}</Text>
        ) : (
          data.dataRequests.map((request) => (
            <BlockStack gap="100" key={request.id}>
              <Text as="p">
                {t("dashboard.dataRequestRow", {
                  customer: request.customerId ?? t("dashboard.unknownCustomer"),
                  asked: request.ordersAsked,
                  found: request.ordersFound,
                  time: formatTime(request.receivedAt),
                })}
              </Text>
              <details>
                <summary>{t("dashboard.dataRequestShow")}</summary>
                <pre style={{ whiteSpace: "pre-wrap", wordBreak: "break-all", maxHeight: 300, overflow: "auto" }}>
                  {request.data}
                </pre>
              </details>
            </BlockStack>
          ))
        )}
      </SectionCard>
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
