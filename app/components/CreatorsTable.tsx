import { Link as RemixLink } from "@remix-run/react";
import { BlockStack, Button, InlineStack } from "@shopify/polaris";
import type { CreatorTotals } from "../commissions/creators.server";
import { t } from "../i18n";
import { CreatorName } from "./CreatorName";
import { creatorPageUrl, CreatorStandingBadge } from "./CreatorStandingBadge";
import { ResponsiveTable } from "./ResponsiveTable";

/**
 * Per creator and currency: records and where their money stands; each creator with their
 * standing, a link to their page (evidence and decisions) and their details to edit.
 */
export function CreatorsTable({
  rows,
  profiles,
  standing,
  onEdit,
}: {
  rows: CreatorTotals[];
  profiles: Record<string, { name?: string; email?: string } | undefined>;
  standing: Record<string, string | undefined>;
  onEdit(creatorId: string): void;
}) {
  return (
    <ResponsiveTable
      columnContentTypes={[
        "text",
        "text",
        "text",
        "numeric",
        "numeric",
        "numeric",
        "numeric",
        "numeric",
        "numeric",
        "numeric",
      ]}
      headings={[
        t("creators.columnCreator"),
        t("creators.profileEmail"),
        t("creators.columnCurrency"),
        t("creators.columnRecords"),
        t("creators.columnPending"),
        t("creators.columnApproved"),
        t("creators.columnPaid"),
        t("creators.columnReversed"),
        t("creators.columnRedirected"),
        t("creators.columnBalance"),
      ]}
      rows={rows.map((row) => [
        <BlockStack key="creator" gap="100" inlineAlign="start">
          <InlineStack gap="100" blockAlign="center" wrap>
            <CreatorName creatorId={row.creatorId} name={profiles[row.creatorId]?.name} />
            <CreatorStandingBadge state={standing[row.creatorId]} />
          </InlineStack>
          <InlineStack gap="200" wrap>
            <RemixLink
              to={creatorPageUrl(row.creatorId)}
              aria-label={t("creators.openFor", { creator: profiles[row.creatorId]?.name || row.creatorId })}
            >
              {t("creators.open")}
            </RemixLink>
            <Button
              variant="plain"
              onClick={() => onEdit(row.creatorId)}
              accessibilityLabel={t("creators.editFor", { creator: row.creatorId })}
            >
              {t("creators.edit")}
            </Button>
          </InlineStack>
        </BlockStack>,
        profiles[row.creatorId]?.email ?? "",
        row.currency,
        row.records,
        row.pending,
        row.approved,
        row.paid,
        row.reversed,
        row.redirected,
        row.balanceDue,
      ])}
    />
  );
}
