import { BlockStack, List, Modal, Text } from "@shopify/polaris";
import type { PayableBalance } from "../commissions/payable-balances.server";
import { t } from "../i18n";
import { formatCalendarDay } from "../units/shop-format";

/**
 * The confirmation before a payout is recorded: each creator, amount and currency, the total,
 * the reference and the date, and how many records it marks paid. Only its Record payout submits.
 */
export function PayoutConfirmModal({
  chosen,
  names,
  total,
  reference,
  paidOn,
  locale,
  submitting,
  onRecord,
  onClose,
}: {
  chosen: PayableBalance[];
  names: Record<string, string | undefined>;
  total: string;
  reference: string;
  /** YYYY-MM-DD, as the date field holds it. */
  paidOn: string;
  locale: string;
  submitting: boolean;
  onRecord(): void;
  onClose(): void;
}) {
  const recordCount = chosen.reduce((sum, b) => sum + b.records, 0);
  return (
    <Modal
      open
      onClose={onClose}
      title={t("payouts.confirmTitle")}
      primaryAction={{ content: t("payouts.confirmSubmit"), onAction: onRecord, loading: submitting }}
      secondaryActions={[{ content: t("payouts.confirmCancel"), onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <Text as="p">
            {t("payouts.confirmIntro", {
              total,
              reference: reference.trim(),
              date: formatCalendarDay(paidOn, locale),
            })}
          </Text>
          <List>
            {chosen.map((b) => (
              <List.Item key={b.key}>
                {t("payouts.confirmLine", {
                  creator: names[b.creatorId] ? `${names[b.creatorId]} (${b.creatorId})` : b.creatorId,
                  amount: b.balance,
                  count: b.records,
                })}
              </List.Item>
            ))}
          </List>
          <Text as="p" fontWeight="semibold">
            {t("payouts.confirmWarning", { count: recordCount })}
          </Text>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
