import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, InlineStack, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { CreatorProfileModal } from "../components/CreatorProfileModal";
import { EmbeddedQueryFields } from "../components/EmbeddedQueryFields";
import { adminMeta } from "../components/documentTitle";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { CreatorName } from "../components/CreatorName";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { saveCreatorProfile, type SaveProfileResult } from "../commissions/creator-profiles.server";
import { creatorsPage } from "../commissions/creators.server";
import { t } from "../i18n";
import { requestLocale } from "../units/shop-format";
import { authenticate } from "../shopify.server";

// Per creator and currency: where their commissions stand, from pending to paid, and what is
// due; and the name, email and note the merchant keeps for each creator id.

export const meta = adminMeta(t("creators.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const creator = new URL(request.url).searchParams.get("creator")?.trim().slice(0, 200) || null;
  return json(await creatorsPage(session.shop, creator, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await request.formData();
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  const result = await saveCreatorProfile(session.shop, {
    creatorId: text("creatorId"),
    name: text("name"),
    email: text("email"),
    note: text("note"),
  });
  return json<SaveProfileResult>(result, { status: result.ok ? 200 : 400 });
};

export default function CreatorsPage() {
  const { creator, rows, profiles, limit } = useLoaderData<typeof loader>();
  const [search, setSearch] = useState(creator ?? "");
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <AdminPage title={t("creators.title")}>
      {saved ? (
        <Banner tone="success" onDismiss={() => setSaved(null)}>
          {t("creators.profileSaved", { creator: saved })}
        </Banner>
      ) : null}
      <Card>
        <Form method="get">
          <EmbeddedQueryFields />
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
              t("creators.profileEmail"),
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
              <BlockStack key="creator" gap="100" inlineAlign="start">
                <CreatorName creatorId={row.creatorId} name={profiles[row.creatorId]?.name} />
                <Button
                  variant="plain"
                  onClick={() => setEditing(row.creatorId)}
                  accessibilityLabel={t("creators.editFor", { creator: row.creatorId })}
                >
                  {t("creators.edit")}
                </Button>
              </BlockStack>,
              profiles[row.creatorId]?.email ?? "",
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
      {editing ? (
        <CreatorProfileModal
          creatorId={editing}
          profile={profiles[editing]}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setSaved(editing);
            setEditing(null);
          }}
        />
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
