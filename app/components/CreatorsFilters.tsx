import { Form } from "@remix-run/react";
import { Button, Card, InlineStack, Select, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { CreatorState } from "../commissions/creator-standing";
import { t } from "../i18n";
import { EmbeddedQueryFields } from "./EmbeddedQueryFields";

// Listed here, not imported: creator-standing.ts holds SQL, which stays out of the browser's bundle.
const STATES: readonly CreatorState[] = ["suspected", "blocked", "released", "reversed"];

// A function, not a constant: the labels are read in the page's language, not at module load.
const standingOptions = () => [
  { label: t("creators.standingAny"), value: "" },
  ...STATES.map((state) => ({ label: t(`creators.standingLabel.${state}`), value: state })),
];

/** The Creators page's filters, in the URL: a creator id (their page), or the creators in one standing. */
export function CreatorsFilters({ creator, standing }: { creator: string | null; standing: string | null }) {
  const [search, setSearch] = useState(creator ?? "");
  const [state, setState] = useState(standing ?? "");
  return (
    <Card>
      <Form method="get">
        <EmbeddedQueryFields />
        <InlineStack gap="300" blockAlign="end" wrap>
          <div style={{ minWidth: 240 }}>
            <TextField
              label={t("creators.creator")}
              name="creator"
              value={search}
              onChange={setSearch}
              autoComplete="off"
            />
          </div>
          <Select
            label={t("creators.standingFilter")}
            name="standing"
            options={standingOptions()}
            value={state}
            onChange={setState}
          />
          <Button submit>{t("creators.apply")}</Button>
        </InlineStack>
      </Form>
    </Card>
  );
}
