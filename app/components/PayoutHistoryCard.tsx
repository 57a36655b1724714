import { useNavigation, useSubmit } from "@remix-run/react";
import { Badge, BlockStack, Button, InlineStack, List, Modal, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { PayoutSummary } from "../commissions/payout-history.server";
import { localePath, t } from "../i18n";
import { shownTime } from "../units/shop-format";
import { CheckedPayoutButton } from "./CheckedPayoutButton";
import { CreatorName } from "./CreatorName";
import { EmptyNote } from "./EmptyNote";
import { SectionCard } from "./SectionCard";
import { useDownload } from "./useDownload";

/**
 * The recorded payouts, newest first: each with its CSV, its lines, and Void while it stands. On a
 * creator's page (`creatorName`) it lists theirs, read only: voiding is done on Payouts.
 */
export function PayoutHistoryCard({
  payouts,
  times,
  creatorName,
  waiting = [],
}: {
  /** paidOnText: the paid-on day as the merchant reads it (paidOn stays YYYY-MM-DD). */
  payouts: (PayoutSummary & { paidOnText: string })[];
  times: Record<string, string>;
  creatorName?: string;
  /** Sent payouts waiting for the merchant's word (checked.server.ts): each gets its button. */
  waiting?: string[];
}) {
  const readOnly = creatorName !== undefined;
  return (
    <SectionCard title={readOnly ? t("creators.payouts", { creator: creatorName }) : t("payouts.history")}>
      {payouts.length === 0 ? (
        <EmptyNote>{readOnly ? t("creators.payoutsEmpty") : t("payouts.historyEmpty")}</EmptyNote>
      ) : (
        payouts.map((payout) => (
          <BlockStack key={payout.id} gap="100">
            <InlineStack align="space-between" blockAlign="center">
              <InlineStack gap="200" blockAlign="center">
                <Text as="h3" variant="headingSm">
                  {t("payouts.historyRow", { date: payout.paidOnText, reference: payout.reference })}
                </Text>
                {payout.voided && !payout.provider ? <Badge tone="critical">{t("payouts.voided")}</Badge> : null}
                {payout.provider ? <ProviderBadge provider={payout.provider} bounced={payout.voided !== null} /> : null}
              </InlineStack>
              <InlineStack gap="200">
                {waiting.includes(payout.id) && !readOnly ? (
                  <CheckedPayoutButton payoutId={payout.id} method={payout.method} />
                ) : null}
                <PayoutCsvButton payoutId={payout.id} />
                {payout.voided || payout.provider || readOnly ? null : (
                  <VoidPayoutButton payoutId={payout.id} reference={payout.reference} paidOn={payout.paidOnText} />
                )}
              </InlineStack>
            </InlineStack>
            {payout.provider ? (
              <Text as="p" tone="subdued">
                {payout.provider.status === "CONFIRMED" || payout.provider.status === "NOT_FOUND"
                  ? t(`payouts.checked.status.${payout.provider.status}`, { item: payout.provider.itemId ?? "\u2014" })
                  : payout.method === "paypal"
                    ? t("payouts.run.status", {
                        item: payout.provider.itemId ?? "\u2014",
                        status: payout.provider.status ?? t("payouts.run.statusPending"),
                      })
                    : t("payouts.shopify.line", {
                        method: t(`payouts.methods.${payout.method}`),
                        item: payout.provider.itemId ?? "\u2014",
                        status: t(`payouts.shopify.status.${payout.provider.status ?? "SENDING"}`),
                      })}
              </Text>
            ) : null}
            {payout.voided && payout.provider ? (
              <Text as="p" tone="critical">
                {t("payouts.run.bounced", { reason: payout.voided.reason })}
              </Text>
            ) : payout.voided ? (
              <Text as="p" tone="critical">
                {t("payouts.voidedRow", {
                  time: shownTime(times, payout.voided.at),
                  by: payout.voided.by ?? t("payouts.voidedByUnknown"),
                  reason: payout.voided.reason,
                })}
              </Text>
            ) : null}
            <List>
              {payout.lines.map((line) => (
                <List.Item key={`${line.creatorId}-${line.currency}`}>
                  <CreatorName creatorId={line.creatorId} name={line.creatorName} />
                  {t("common.labelSeparator")}
                  {t("payouts.lineAmount", { amount: line.amount, count: line.records })}
                </List.Item>
              ))}
            </List>
          </BlockStack>
        ))
      )}
    </SectionCard>
  );
}

/** A sent payout's state: paid, bounced (payable again) or still with the provider. */
function ProviderBadge({ provider, bounced }: { provider: NonNullable<PayoutSummary["provider"]>; bounced: boolean }) {
  if (bounced) return <Badge tone="warning">{t("payouts.run.badgeBounced")}</Badge>;
  if (provider.settled) return <Badge tone="success">{t("payouts.run.badgePaid")}</Badge>;
  return <Badge tone="attention">{t("payouts.run.badgeSending")}</Badge>;
}

/** Void asks why, in a confirmation that says what voiding does; it cannot be undone. */
function VoidPayoutButton({ payoutId, reference, paidOn }: { payoutId: string; reference: string; paidOn: string }) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [hint, setHint] = useState<string | undefined>();
  const voiding = navigation.state === "submitting" && navigation.formData?.get("payoutId") === payoutId;
  const confirm = () => {
    if (!reason.trim()) {
      setHint(t("payouts.voidReasonMissing"));
      return;
    }
    submit({ intent: "void", payoutId, reason }, { method: "post" });
    setOpen(false);
  };
  return (
    <>
      <Button tone="critical" variant="secondary" onClick={() => setOpen(true)} loading={voiding}>
        {t("payouts.void")}
      </Button>
      {open ? (
        <Modal
          open={open}
          onClose={() => setOpen(false)}
          title={t("payouts.voidTitle", { reference, date: paidOn })}
          primaryAction={{ content: t("payouts.voidSubmit"), destructive: true, onAction: confirm }}
          secondaryActions={[{ content: t("payouts.voidCancel"), onAction: () => setOpen(false) }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <Text as="p">{t("payouts.voidBody")}</Text>
              <TextField
                label={t("payouts.voidReason")}
                value={reason}
                onChange={setReason}
                autoComplete="off"
                multiline={2}
                helpText={t("payouts.voidReasonHelp")}
                error={hint}
              />
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}
    </>
  );
}

/**
 * The CSV through fetch, which App Bridge gives the session token (a plain link would not carry it),
 * with `?locale=` as every request of the admin's pages carries it.
 */
function PayoutCsvButton({ payoutId }: { payoutId: string }) {
  const { downloading, download } = useDownload("payout.csv");
  return (
    <Button onClick={() => void download(localePath(`/app/payouts/${payoutId}/export`))} loading={downloading}>
      {t("payouts.export")}
    </Button>
  );
}
