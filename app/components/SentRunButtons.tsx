import { useSubmit } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, List, Text } from "@shopify/polaris";
import type { RefObject } from "react";
import { methodOf, type PayoutMethod } from "../payouts/methods";
import type { SentMethod } from "../payouts/run-intent.server";
import { t } from "../i18n";

interface Balance {
  key: string;
  creatorId: string;
  currency: string;
  balance: string;
  payable: boolean;
}

/**
 * The ways the app sends the chosen balances (PayPal, store credit, gift cards), and the balances
 * store credit and gift cards cannot pay, listed apart with the reason: they are in another
 * currency than the shop's, and the app never converts them.
 */
export function SentRunButtons({
  disabled,
  form,
  balances,
  names,
  methods,
  shopCurrency,
}: {
  disabled: boolean;
  /** The payout form: its token and chosen balances go with the run. */
  form: RefObject<HTMLFormElement | null>;
  balances: Balance[];
  names: Record<string, string | undefined>;
  methods: { defaultMethod: PayoutMethod; creatorMethods: Record<string, PayoutMethod> };
  shopCurrency: string | null;
}) {
  const submit = useSubmit();
  const onSend = (method: SentMethod) => {
    if (!form.current) return;
    const data = new FormData(form.current);
    data.set("intent", method === "paypal" ? "paypal-run" : "shopify-run");
    data.set("method", method);
    submit(data, { method: "post" });
  };
  const inShop = (b: Balance) => methodOf(b.creatorId, methods.creatorMethods, methods.defaultMethod);
  const apart = balances.filter(
    (b) => b.payable && (inShop(b) === "store_credit" || inShop(b) === "gift_card") && b.currency !== shopCurrency,
  );
  return (
    <BlockStack gap="200">
      <InlineStack align="end" gap="200">
        <Button onClick={() => onSend("paypal")} disabled={disabled}>
          {t("payouts.run.send")}
        </Button>
        <Button onClick={() => onSend("store_credit")} disabled={disabled}>
          {t("payouts.shopify.send.store_credit")}
        </Button>
        <Button onClick={() => onSend("gift_card")} disabled={disabled}>
          {t("payouts.shopify.send.gift_card")}
        </Button>
      </InlineStack>
      <Text as="p" tone="subdued">
        {t("payouts.run.sendHelp")}{" "}
        {t("payouts.shopify.sendHelp", {
          method: `${t("payouts.methods.store_credit")} / ${t("payouts.methods.gift_card")}`,
        })}
      </Text>
      {apart.length > 0 ? (
        <Banner tone="warning" title={t("payouts.shopify.otherCurrencyTitle")}>
          <List>
            {apart.map((b) => (
              <List.Item key={b.key}>
                {t("payouts.shopify.otherCurrencyRow", {
                  creator: names[b.creatorId] || b.creatorId,
                  amount: b.balance,
                  currency: b.currency,
                  shopCurrency: shopCurrency ?? "?",
                })}
              </List.Item>
            ))}
          </List>
        </Banner>
      ) : null}
    </BlockStack>
  );
}
