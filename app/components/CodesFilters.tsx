import { Form } from "@remix-run/react";
import { Button, Card, Checkbox, InlineStack, Select, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { CodeFilter } from "../codes/code-filter";
import { t } from "../i18n";
import { EmbeddedQueryFields } from "./EmbeddedQueryFields";

/** The Codes page's filters, in the URL: a code's text, the period, the order, and hijacked codes only. */
export function CodesFilters({ filter }: { filter: CodeFilter }) {
  const [search, setSearch] = useState(filter.search);
  const [days, setDays] = useState(String(filter.period));
  const [sort, setSort] = useState<string>(filter.sort);
  const [hijackedOnly, setHijackedOnly] = useState(filter.hijackedOnly);
  return (
    <Card>
      <Form method="get">
        <EmbeddedQueryFields />
        <InlineStack gap="300" blockAlign="end">
          <div style={{ minWidth: 200 }}>
            <TextField label={t("codes.search")} name="code" value={search} onChange={setSearch} autoComplete="off" />
          </div>
          <Select
            label={t("codes.period")}
            name="days"
            value={days}
            onChange={setDays}
            options={["7", "30", "90"].map((value) => ({ value, label: t("codes.days", { count: Number(value) }) }))}
          />
          <Select
            label={t("codes.sort")}
            name="sort"
            value={sort}
            onChange={setSort}
            options={[
              { value: "harm", label: t("codes.sortHarm") },
              { value: "orders", label: t("codes.sortOrders") },
              { value: "code", label: t("codes.sortCode") },
            ]}
          />
          <Checkbox label={t("codes.hijackedOnly")} checked={hijackedOnly} onChange={setHijackedOnly} />
          {hijackedOnly ? <input type="hidden" name="hijacked" value="1" /> : null}
          <Button submit>{t("codes.apply")}</Button>
        </InlineStack>
      </Form>
    </Card>
  );
}
