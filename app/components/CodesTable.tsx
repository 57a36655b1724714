import { Badge, BlockStack, Button, Card, Text } from "@shopify/polaris";
import type { CodesPage } from "../codes/codes-page.server";
import { t } from "../i18n";
import { shownTime } from "../units/shop-format";
import { EmptyNote } from "./EmptyNote";
import { ResponsiveTable } from "./ResponsiveTable";

/**
 * The codes that rode on the period's orders, worst first by default: how many orders and
 * hijacked orders, the discount and commission at stake, when seen, and whether the code is
 * switched off (by whom and when) or a button to switch it off.
 */
export function CodesTable({
  rows,
  times,
  busyCode,
  onSwitchOff,
}: {
  rows: CodesPage["rows"];
  times: CodesPage["times"];
  /** The code being switched off right now, if any. */
  busyCode: string | null;
  onSwitchOff(code: string): void;
}) {
  const tableRows = rows.map((row) => [
    <Text key="code" as="span" fontWeight="semibold">
      {row.code}
    </Text>,
    row.orders,
    `${row.hijacked} (${row.hijackedShare})`,
    row.discountOnHijacked,
    row.redirectedOnHijacked,
    // First and last on one line, by day: the table stays narrow enough for the admin's frame.
    row.seenText ?? t("common.none"),
    row.deactivation ? (
      <BlockStack key="state" gap="100" inlineAlign="start">
        <Badge tone="success">{t("codes.switchedOff")}</Badge>
        {/* DataTable cells do not wrap: this one may, or the table outgrows the admin's frame. */}
        <div style={{ whiteSpace: "normal", maxWidth: 160 }}>
          <Text as="span" variant="bodySm" tone="subdued">
            {t("codes.switchedOffBy", {
              time: shownTime(times, row.deactivation.at),
              user: row.deactivation.userId
                ? t("codes.staffMember", { id: row.deactivation.userId })
                : t("codes.someone"),
            })}
          </Text>
        </div>
      </BlockStack>
    ) : (
      <Button
        key="action"
        size="slim"
        loading={busyCode === row.code}
        onClick={() => onSwitchOff(row.code)}
        accessibilityLabel={t("codes.switchOffLabel", { code: row.code })}
      >
        {t("codes.switchOff")}
      </Button>
    ),
  ]);

  return (
    <Card padding="0">
      {rows.length === 0 ? (
        <div style={{ padding: 16 }}>
          <EmptyNote>{t("codes.empty")}</EmptyNote>
        </div>
      ) : (
        <ResponsiveTable
          columnContentTypes={["text", "numeric", "numeric", "numeric", "numeric", "text", "text"]}
          headings={[
            t("codes.columnCode"),
            t("codes.columnOrders"),
            t("codes.columnHijacked"),
            t("codes.columnDiscount"),
            t("codes.columnRedirected"),
            t("codes.columnSeen"),
            t("codes.columnState"),
          ]}
          rows={tableRows}
        />
      )}
    </Card>
  );
}
