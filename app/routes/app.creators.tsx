import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { Button, Card, InlineStack, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { creatorTotals, CREATORS_LIMIT } from "../commissions/creators.server";
import { t } from "../i18n";
import { authenticate } from "../shopify.server";

// Per creator and currency: where their commissions stand, from pending to paid, and what is due.

export const meta = adminMeta(t("creators.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const creator = new URL(request.url).searchParams.get("creator")?.trim().slice(0, 200) || null;
  return json({ creator, rows: await creatorTotals(session.shop, creator), limit: CREATORS_LIMIT });
};

export default function CreatorsPage() {
  const { creator, rows, limit } = useLoaderData<typeof loader>();
  const location = useLocation();
  const [search, setSearch] = useState(creator ?? "");
  return (
    <AdminPage title={t("creators.title")}>
      <Card>
        <Form method="get">
          {["embedded", "shop", "host", "locale"].map((name) => {
            const value = new URLSearchParams(location.search).get(name);
            return value ? <input key={name} type="hidden" name={name} value={value} /> : null;
          })}
          <InlineStack gap="300" blockAlign="end">
            <div style={{ minWidth: 240 }}>
              <TextField
                label={t("creators.creator")}
                name="creator"
                value={search}
                onChange={setSearch}
                autoComplete="off"
              />
            </div>
            <Button submit>{t("creators.apply")}</Button>
          </InlineStack>
        </Form>
      </Card>
      <Card padding="0">
        {rows.length === 0 ? (
          <div style={{ padding: 16 }}>
            <EmptyNote>{t("creators.empty")}</EmptyNote>
          </div>
        ) : (
          <ResponsiveTable
            columnContentTypes={[
              "text",
              "text",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
            ]}
            headings={[
              t("creators.columnCreator"),
              t("creators.columnCurrency"),
              t("creators.columnRecords"),
              t("creators.columnPending"),
              t("creators.columnApproved"),
              t("creators.columnPaid"),
              t("creators.columnReversed"),
              t("creators.columnRedirected"),
              t("creators.columnBalance"),
            ]}
            rows={rows.map((row) => [
              row.creatorId,
              row.currency,
              row.records,
              row.pending,
              row.approved,
              row.paid,
              row.reversed,
              row.redirected,
              row.balanceDue,
            ])}
          />
        )}
      </Card>
      <Text as="p" tone="subdued">
        {t("creators.help")}
      </Text>
      {rows.length >= limit ? (
        <Text as="p" tone="subdued">
          {t("creators.limited", { count: limit })}
        </Text>
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
