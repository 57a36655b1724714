import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Banner, Card, EmptyState, Layout, Page, Select, SkeletonBodyText, Text } from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { PageError } from "../components/PageError";
import { SectionCard } from "../components/SectionCard";
import { Attention, OutcomeCounts, Recovered } from "../components/DashboardSummary";
import {
  CoverageCard,
  DataRequestsCard,
  LandingRecordCard,
  RecentVerificationsCard,
  TopTagsAndCodes,
} from "../components/DashboardDetails";
import { requestLocale, shownTime } from "../units/shop-format";
import { getDashboardFor } from "../dashboard/dashboard.server";
import { getSetupStatus } from "../dashboard/setup.server";
import { EmbedBanner, SetupGuide, useEmbedStatus } from "../components/SetupGuide";
import { parsePeriod, PERIODS } from "../units/periods";
import { ReconciliationCard } from "../components/ReconciliationCard";
import { localePath, t } from "../i18n";
import { authenticate } from "../shopify.server";

export const meta = adminMeta(() => t("dashboard.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const period = parsePeriod(new URL(request.url).searchParams.get("days"));
  const [dashboard, setup] = await Promise.all([
    getDashboardFor(session.shop, period, requestLocale(request), admin.graphql),
    getSetupStatus(session.shop, admin.graphql),
  ]);
  return json({ ...dashboard, setup });
};

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
                action={{ content: t("dashboard.emptyAction"), url: localePath("/app/settings") }}
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

  const time = (iso: string | null | undefined) => shownTime(data.times, iso);

  return (
    <AdminPage title={t("dashboard.title")} primaryAction={periodSelect}>
      {data.banners.credentialsRejectedAt ? (
        <Banner
          tone="critical"
          title={t("dashboard.bannerKeyTitle")}
          action={{ content: t("dashboard.bannerKeyAction"), url: localePath("/app/settings") }}
        >
          <Text as="p">{t("dashboard.bannerKeyBody", { time: time(data.banners.credentialsRejectedAt) })}</Text>
        </Banner>
      ) : null}
      <EmbedBanner
        status={embed}
        captureNotSeen={data.banners.captureNotSeen}
        themeEditorUrl={data.themeEditorUrl}
        days={data.period}
      />

      {loading ? (
        <Card>
          <SkeletonBodyText lines={6} />
        </Card>
      ) : (
        <>
          <Recovered data={data} />
          <Attention data={data} time={time} />
          {guide}

          <SectionCard title={t("dashboard.counts", { days: data.period })} gap="300">
            <OutcomeCounts counts={data.counts} />
          </SectionCard>

          <TopTagsAndCodes data={data} />
          <LandingRecordCard landing={data.landing} />

          <ReconciliationCard status={data.reconciliation} time={time} />

          <CoverageCard data={data} />
          <RecentVerificationsCard recent={data.recent} creatorNames={data.creatorNames} time={time} />
        </>
      )}

      <DataRequestsCard dataRequests={data.dataRequests} time={time} />
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
