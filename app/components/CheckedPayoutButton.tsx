import { useNavigation, useSubmit } from "@remix-run/react";
import { BlockStack, Button, ChoiceList, Modal, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { t } from "../i18n";

/**
 * For a sent payout that waits for the merchant (its provider's records could not settle it): a
 * confirmation where they say what they found in PayPal or Shopify. Paid needs the id they found;
 * not paid makes its balance payable again, so the dialog says to be sure first.
 */
export function CheckedPayoutButton({ payoutId, method }: { payoutId: string; method: string }) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const [open, setOpen] = useState(false);
  const [found, setFound] = useState<"paid" | "unpaid" | null>(null);
  const [providerId, setProviderId] = useState("");
  const [hint, setHint] = useState<{ found?: string; providerId?: string }>({});
  const provider = t(method === "paypal" ? "payouts.checked.inPaypal" : "payouts.checked.inShopify");
  const sending = navigation.state === "submitting" && navigation.formData?.get("payoutId") === payoutId;
  const confirm = () => {
    if (!found) return setHint({ found: t("payouts.checked.foundMissing") });
    if (found === "paid" && !providerId.trim()) return setHint({ providerId: t("payouts.checked.providerIdMissing") });
    submit(
      { intent: "checked", payoutId, found, ...(found === "paid" && { providerId: providerId.trim() }) },
      { method: "post" },
    );
    setOpen(false);
  };
  return (
    <>
      <Button onClick={() => setOpen(true)} loading={sending}>
        {t("payouts.checked.button", { provider })}
      </Button>
      {open ? (
        <Modal
          open={open}
          onClose={() => setOpen(false)}
          title={t("payouts.checked.title", { provider })}
          primaryAction={{ content: t("payouts.checked.submit"), onAction: confirm }}
          secondaryActions={[{ content: t("payouts.checked.cancel"), onAction: () => setOpen(false) }]}
        >
          <Modal.Section>
            <BlockStack gap="300">
              <Text as="p">{t("payouts.checked.body", { provider })}</Text>
              <ChoiceList
                title={t("payouts.checked.question")}
                choices={[
                  { label: t("payouts.checked.foundPaid", { provider }), value: "paid" },
                  { label: t("payouts.checked.foundUnpaid", { provider }), value: "unpaid" },
                ]}
                selected={found ? [found] : []}
                onChange={([value]) => setFound(value === "paid" || value === "unpaid" ? value : null)}
                error={hint.found}
              />
              {found === "paid" ? (
                <TextField
                  label={t("payouts.checked.providerId")}
                  value={providerId}
                  onChange={setProviderId}
                  autoComplete="off"
                  helpText={t("payouts.checked.providerIdHelp", { provider })}
                  error={hint.providerId}
                />
              ) : null}
              {found === "unpaid" ? (
                <Text as="p" tone="critical">
                  {t("payouts.checked.unpaidWarning", { provider })}
                </Text>
              ) : null}
            </BlockStack>
          </Modal.Section>
        </Modal>
      ) : null}
    </>
  );
}
