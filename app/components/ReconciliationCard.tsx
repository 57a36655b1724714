import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useFetcher } from "@remix-run/react";
import { localePath, t } from "../i18n";
import type { ReconciliationView } from "../reconciliation/reconciliation-view";
import { SectionCard } from "./SectionCard";

/**
 * The safety net, for the merchant: when Tag Guard last checked the shop's orders for any that
 * Shopify never delivered, what it found since install, and a way to check now. A check that
 * could not go through says why.
 */
export function ReconciliationCard({
  status,
  time,
}: {
  status: ReconciliationView | null;
  /** A time as the loader formatted it for the merchant (the shop's zone). */
  time: (iso: string | null) => string;
}) {
  const fetcher = useFetcher<{ ok: boolean }>();
  const asked = fetcher.state !== "idle" || fetcher.data?.ok === true;
  if (!status) return null;
  const { orders, refunds, cancellations, edits } = status.found;
  const any = orders + refunds + cancellations + edits > 0;
  const failing = status.failedAt !== null && (status.sweptAt === null || status.failedAt > status.sweptAt);
  return (
    <SectionCard title={t("reconciliation.title")}>
      <Text as="p">
        {status.sweptAt ? t("reconciliation.lastChecked", { time: time(status.sweptAt) }) : t("reconciliation.notYet")}
      </Text>
      <Text as="p" tone={any ? undefined : "subdued"} id="reconciliation-found">
        {any
          ? t("reconciliation.found", {
              orders: t("reconciliation.orders", { count: orders }),
              refunds: t("reconciliation.refunds", { count: refunds }),
              cancellations: t("reconciliation.cancellations", { count: cancellations }),
              edits: t("reconciliation.edits", { count: edits }),
            })
          : t("reconciliation.nothingMissed")}
      </Text>
      {failing ? (
        <Banner tone="warning" title={t("reconciliation.failedTitle", { time: time(status.failedAt) })}>
          <BlockStack gap="100">
            <Text as="p">{status.lastError}</Text>
            <Text as="p">{t("reconciliation.failedHelp")}</Text>
          </BlockStack>
        </Banner>
      ) : null}
      <InlineStack align="start">
        <fetcher.Form method="post" action={localePath("/app/reconcile")}>
          <Button submit loading={fetcher.state !== "idle"} disabled={status.pending || asked}>
            {status.pending || asked ? t("reconciliation.checking") : t("reconciliation.checkNow")}
          </Button>
        </fetcher.Form>
      </InlineStack>
    </SectionCard>
  );
}
