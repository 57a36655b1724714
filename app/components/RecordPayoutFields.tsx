import { Button, FormLayout, InlineStack, TextField } from "@shopify/polaris";
import { Fragment } from "react";
import { t } from "../i18n";

/** The chosen balances as the form sends them: each key with the amount the page showed beside it. */
export function ChosenBalanceInputs({ chosen }: { chosen: { key: string; balanceMinor: string }[] }) {
  return (
    <>
      {chosen.map((b) => (
        <Fragment key={b.key}>
          <input type="hidden" name="balance" value={b.key} />
          <input type="hidden" name={`shown:${b.key}`} value={b.balanceMinor} />
        </Fragment>
      ))}
    </>
  );
}

/** A payment made outside the app: its reference and day, then Review, which opens the confirmation. */
export function RecordPayoutFields({
  reference,
  onReference,
  paidOn,
  onPaidOn,
  errors,
  canReview,
  onReview,
}: {
  reference: string;
  onReference: (value: string) => void;
  paidOn: string;
  onPaidOn: (value: string) => void;
  errors: { reference?: string; paidOn?: string };
  canReview: boolean;
  onReview: () => void;
}) {
  return (
    <>
      <FormLayout>
        <TextField
          label={t("payouts.reference")}
          name="reference"
          value={reference}
          onChange={onReference}
          autoComplete="off"
          helpText={t("payouts.referenceHelp")}
          error={errors.reference}
        />
        <TextField
          label={t("payouts.paidOn")}
          name="paidOn"
          type="date"
          value={paidOn}
          onChange={onPaidOn}
          autoComplete="off"
          error={errors.paidOn}
        />
      </FormLayout>
      <InlineStack align="end" gap="200">
        <Button variant="primary" onClick={onReview} disabled={!canReview}>
          {t("payouts.review")}
        </Button>
      </InlineStack>
    </>
  );
}
