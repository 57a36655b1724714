import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { Badge, Box, Button, Card, EmptyState, InlineStack, Link, SkeletonBodyText, Text } from "@shopify/polaris";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { CreatorName } from "../components/CreatorName";
import { EmptyNote } from "../components/EmptyNote";
import { LedgerFilters } from "../components/LedgerFilters";
import { PageError } from "../components/PageError";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { SectionCard } from "../components/SectionCard";
import { useDownload } from "../components/useDownload";
import { CommissionStatusBadge } from "../components/OutcomeBadge";
import { listLedgerFor } from "../commissions/ledger.server";
import { requestLocale, shownTime } from "../units/shop-format";
import { localePath, t } from "../i18n";
import { authenticate } from "../shopify.server";

// The commission ledger: filters live in the URL (shareable, back-button friendly), pages are
// keyset cursors, totals cover the whole filtered set, the export downloads that same set.

export const meta = adminMeta(() => t("ledger.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await listLedgerFor(session.shop, new URL(request.url).searchParams, requestLocale(request)));
};

function filterQuery(
  filter: { creatorId: string | null; status: string | null; redirectedOnly: boolean; days: number | null },
  extra: Record<string, string> = {},
) {
  const params = new URLSearchParams();
  if (filter.creatorId) params.set("creator", filter.creatorId);
  if (filter.status) params.set("status", filter.status);
  if (filter.redirectedOnly) params.set("redirected", "1");
  if (filter.days) params.set("days", String(filter.days));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params;
}

export default function CommissionsPage() {
  const { filter, rows, nextCursor, totals, times } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const location = useLocation();
  const loading = navigation.state === "loading" && navigation.location?.pathname === "/app/commissions";

  // The embedded app's own query (shop, host, embedded) must ride along with the export link.
  const exportParams = new URLSearchParams(location.search);
  exportParams.delete("cursor");
  const exportUrl = `/app/commissions/export?${exportParams.toString()}`;
  const { downloading: exporting, download } = useDownload("commissions.csv");
  const onFirstPage = !new URLSearchParams(location.search).get("cursor");

  const tableRows = rows.map((row) => [
    <InlineStack key="order" gap="200" wrap>
      <RemixLink to={localePath(`/app/orders/${row.verificationId}`)}>{row.orderName ?? `#${row.orderId}`}</RemixLink>
      {/* Named with its visible words first (WCAG 2.5.3) and the order, so a list of links tells rows apart. */}
      <Link
        url={row.adminOrderUrl}
        target="_top"
        accessibilityLabel={t("ledger.openInShopifyFor", { order: row.orderName ?? `#${row.orderId}` })}
      >
        {t("order.openInShopify")}
      </Link>
    </InlineStack>,
    <CreatorName key="creator" creatorId={row.creatorId} name={row.creatorName} />,
    <span key="tags">
      {t("ledger.tagPair", { expected: row.expectedTag, arrived: row.arrivedTag || t("common.none") })}{" "}
      {row.redirected ? <Badge tone="critical">{t("ledger.redirectedBadge")}</Badge> : null}
    </span>,
    row.amountText,
    <CommissionStatusBadge key="status" status={row.status} />,
    shownTime(times, row.createdAt),
  ]);

  return (
    <AdminPage
      title={t("ledger.title")}
      primaryAction={{ content: t("ledger.export"), onAction: () => void download(exportUrl), loading: exporting }}
    >
      <LedgerFilters filter={filter} loading={loading} />

      <SectionCard title={t("ledger.totals")}>
        {totals.length === 0 ? (
          <EmptyNote>{t("common.none")}</EmptyNote>
        ) : (
          totals.map((total) => (
            <Text as="p" key={total.currency}>
              {t("ledger.totalsRow", { total: total.totalText, count: total.records })}
            </Text>
          ))
        )}
      </SectionCard>

      <Card padding="0">
        {loading ? (
          <Box padding="400">
            <SkeletonBodyText lines={8} />
          </Box>
        ) : rows.length === 0 ? (
          <EmptyState heading={t("ledger.empty")} image="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
            <p>{t("ledger.emptyHelp")}</p>
          </EmptyState>
        ) : (
          <ResponsiveTable
            columnContentTypes={["text", "text", "text", "numeric", "text", "text"]}
            headings={[
              t("ledger.columnOrder"),
              t("ledger.columnCreator"),
              t("ledger.columnTags"),
              t("ledger.columnAmount"),
              t("ledger.columnStatus"),
              t("ledger.columnRecorded"),
            ]}
            rows={tableRows}
          />
        )}
        <Box padding="400">
          <InlineStack gap="300">
            {!onFirstPage ? (
              <Button url={localePath(`/app/commissions?${filterQuery(filter).toString()}`)}>
                {t("ledger.first")}
              </Button>
            ) : null}
            {nextCursor ? (
              <Button url={localePath(`/app/commissions?${filterQuery(filter, { cursor: nextCursor }).toString()}`)}>
                {t("ledger.next")}
              </Button>
            ) : null}
          </InlineStack>
        </Box>
      </Card>
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
