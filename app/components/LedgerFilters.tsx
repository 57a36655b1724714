import { Form } from "@remix-run/react";
import { Button, Card, Checkbox, InlineStack, Select, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { LedgerFilter } from "../commissions/ledger.server";
import { COMMISSION_STATUSES } from "../commissions/statuses";
import { t } from "../i18n";
import { PERIODS } from "../units/periods";
import { EmbeddedQueryFields } from "./EmbeddedQueryFields";

// Functions, not constants: the labels are read in the page's language, not at module load.
const statusOptions = () => [
  { label: t("ledger.statusAny"), value: "" },
  ...COMMISSION_STATUSES.map((status) => ({ label: t(`ledger.statusLabel.${status}`), value: status })),
];

const periodOptions = () => [
  { label: t("ledger.periodAll"), value: "" },
  ...PERIODS.map((days) => ({ label: t("period.option", { days }), value: String(days) })),
];

/** The ledger's filters, in the URL (shareable, back-button friendly): creator, status, period, redirected only. */
export function LedgerFilters({ filter, loading }: { filter: LedgerFilter; loading: boolean }) {
  const [creator, setCreator] = useState(filter.creatorId ?? "");
  const [status, setStatus] = useState(filter.status ?? "");
  const [days, setDays] = useState(filter.days ? String(filter.days) : "");
  const [redirectedOnly, setRedirectedOnly] = useState(filter.redirectedOnly);
  return (
    <Card>
      <Form method="get">
        <EmbeddedQueryFields />
        <input type="hidden" name="redirected" value={redirectedOnly ? "1" : ""} />
        <InlineStack gap="300" blockAlign="end" wrap>
          <div style={{ minWidth: 200 }}>
            <TextField
              label={t("ledger.creator")}
              name="creator"
              value={creator}
              onChange={setCreator}
              autoComplete="off"
            />
          </div>
          <Select
            label={t("ledger.status")}
            name="status"
            options={statusOptions()}
            value={status}
            onChange={setStatus}
          />
          <Select label={t("period.label")} name="days" options={periodOptions()} value={days} onChange={setDays} />
          <Checkbox label={t("ledger.redirectedOnly")} checked={redirectedOnly} onChange={setRedirectedOnly} />
          <Button submit loading={loading}>
            {t("ledger.apply")}
          </Button>
        </InlineStack>
      </Form>
    </Card>
  );
}
