import { Link as RemixLink } from "@remix-run/react";
import { Badge, Banner, BlockStack, Checkbox, Text } from "@shopify/polaris";
import type { PayableBalance } from "../commissions/payable-balances.server";
import { t } from "../i18n";
import { shownTime } from "../units/shop-format";
import { CreatorName } from "./CreatorName";
import { creatorPageUrl } from "./CreatorStandingBadge";
import { EmptyNote } from "./EmptyNote";
import { ResponsiveTable } from "./ResponsiveTable";
import { SectionCard } from "./SectionCard";

/** A held creator's balance: not choosable, with why and the way to the creator's page. */
function HeldBalance({ creatorId, name, held }: { creatorId: string; name?: string; held: "suspected" | "blocked" }) {
  return (
    <BlockStack gap="100" inlineAlign="start">
      <Badge tone={held === "blocked" ? "critical" : "warning"}>{t("payouts.heldBadge")}</Badge>
      <Text as="span" variant="bodySm">
        {t(held === "blocked" ? "payouts.heldBlocked" : "payouts.held")}
      </Text>
      <RemixLink to={creatorPageUrl(creatorId)}>{t("payouts.heldLink", { creator: name || creatorId })}</RemixLink>
    </BlockStack>
  );
}

/**
 * The balances a payout can pay, each with its box to choose it (only a positive balance can be
 * chosen), then what is chosen, summed per currency, and a warning when that is more than one.
 * Top-ups still in their hold are not in a balance: under it, they say when they will be.
 */
export function PayableBalancesCard({
  balances,
  names,
  chosen,
  onToggle,
  totals,
  times,
}: {
  balances: PayableBalance[];
  names: Record<string, string | undefined>;
  /** The keys of the chosen balances. */
  chosen: string[];
  onToggle(key: string, on: boolean): void;
  totals: { currency: string; total: string }[];
  /** Times as the loader formatted them for the merchant (the shop's zone). */
  times: Record<string, string>;
}) {
  return (
    <SectionCard title={t("payouts.balances")}>
      <Text as="p" tone="subdued">
        {t("payouts.balancesHelp")}
      </Text>
      {balances.length === 0 ? (
        <EmptyNote>{t("payouts.balancesEmpty")}</EmptyNote>
      ) : (
        <ResponsiveTable
          titleColumn={1}
          columnContentTypes={["text", "text", "numeric", "numeric", "numeric", "numeric"]}
          headings={[
            t("payouts.columnPay"),
            t("payouts.columnCreator"),
            t("payouts.columnApproved"),
            t("payouts.columnOwed"),
            t("payouts.columnBalance"),
            t("payouts.columnRecords"),
          ]}
          rows={balances.map((b) => [
            b.held ? (
              <HeldBalance key="pay" creatorId={b.creatorId} name={names[b.creatorId]} held={b.held} />
            ) : b.payable ? (
              <Checkbox
                key="pay"
                label={t("payouts.choose", { creator: b.creatorId, balance: b.balance })}
                labelHidden
                checked={chosen.includes(b.key)}
                onChange={(on) => onToggle(b.key, on)}
              />
            ) : (
              <Text key="pay" as="span" tone="subdued">
                {b.waiting && b.balanceMinor === "0" ? t("payouts.notPayableYet") : t("payouts.notPayable")}
              </Text>
            ),
            <CreatorName key="creator" creatorId={b.creatorId} name={names[b.creatorId]} />,
            b.approved,
            b.owed,
            b.waiting ? (
              <BlockStack key="balance" gap="050">
                <span>{b.balance}</span>
                <Text as="span" variant="bodySm" tone="subdued">
                  {t("payouts.waiting", {
                    count: b.waiting.count,
                    amount: b.waiting.amount,
                    time: shownTime(times, b.waiting.from),
                  })}
                </Text>
              </BlockStack>
            ) : (
              b.balance
            ),
            b.records,
          ])}
        />
      )}
      <div role="status" data-testid="selected-total">
        {totals.length === 0 ? (
          <Text as="p" tone="subdued">
            {t("payouts.selectedNone")}
          </Text>
        ) : (
          <BlockStack gap="100">
            <Text as="p" variant="headingSm">
              {t("payouts.selectedCount", { count: balances.filter((b) => chosen.includes(b.key)).length })}
            </Text>
            {totals.map((total) => (
              <Text as="p" key={total.currency}>
                {t("payouts.selectedTotal", { total: total.total })}
              </Text>
            ))}
          </BlockStack>
        )}
      </div>
      {totals.length > 1 ? (
        <Banner tone="warning">
          {t("payouts.mixedWarning", { currencies: totals.map((total) => total.currency).join(", ") })}
        </Banner>
      ) : null}
    </SectionCard>
  );
}
