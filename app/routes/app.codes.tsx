import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useAppBridge } from "@shopify/app-bridge-react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  Checkbox,
  InlineStack,
  Modal,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { useCallback, useEffect, useState } from "react";
import { codesAction, codesPageFor, type CodesAction } from "../codes/codes-page.server";
import { DISCOUNT_SCOPES } from "../codes/discount-scopes";
import { AdminPage } from "../components/AdminPage";
import { EmbeddedQueryFields } from "../components/EmbeddedQueryFields";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { useDownload } from "../components/useDownload";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { ResponsiveTable } from "../components/ResponsiveTable";
import { t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { requestLocale, shownTime } from "../units/shop-format";

// Which discount codes ride on hijacked orders, and switching one off in Shopify.

export const meta = adminMeta(t("codes.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await codesPageFor(session.shop, new URL(request.url).searchParams, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const context = await authenticate.admin(request);
  const userId = staffIdOf(context);
  const { status, result } = await codesAction({
    graphql: context.admin.graphql,
    shop: context.session.shop,
    form: await request.formData(),
    userId,
  });
  return json(result, { status });
};

type ScopeState = "unknown" | "granted" | "missing";

export default function CodesPage() {
  const { filter, rows, limit, times } = useLoaderData<typeof loader>();
  const location = useLocation();
  const shopify = useAppBridge();
  const fetcher = useFetcher<CodesAction>();
  const [search, setSearch] = useState(filter.search);
  const [days, setDays] = useState(String(filter.period));
  const [sort, setSort] = useState<string>(filter.sort);
  const [hijackedOnly, setHijackedOnly] = useState(filter.hijackedOnly);
  const [scopes, setScopes] = useState<ScopeState>("unknown");
  const [confirming, setConfirming] = useState<string | null>(null);
  const [declined, setDeclined] = useState(false);

  const hasDiscountScopes = (granted: string[]) => DISCOUNT_SCOPES.every((scope) => granted.includes(scope));
  // What the shop has granted is App Bridge's to say; until it answers the action is offered anyway.
  useEffect(() => {
    let live = true;
    shopify.scopes
      ?.query()
      .then((detail) => live && setScopes(hasDiscountScopes(detail.granted) ? "granted" : "missing"))
      .catch(() => live && setScopes("unknown"));
    return () => {
      live = false;
    };
  }, [shopify]);

  // The scopes are asked for only here, on first use: installing the app asks for none of them.
  const startSwitchOff = useCallback(
    async (code: string) => {
      setDeclined(false);
      let granted = scopes === "granted";
      if (!granted) {
        const detail = await shopify.scopes.query();
        granted = hasDiscountScopes(detail.granted);
        if (!granted) {
          const answer = await shopify.scopes.request([...DISCOUNT_SCOPES]);
          granted = answer.result === "granted-all" && hasDiscountScopes(answer.detail.granted);
        }
        setScopes(granted ? "granted" : "missing");
      }
      if (granted) setConfirming(code);
      else setDeclined(true);
    },
    [scopes, shopify],
  );

  const confirm = () => {
    if (!confirming) return;
    fetcher.submit({ intent: "switch-off", code: confirming }, { method: "post" });
    setConfirming(null);
  };

  const exportParams = new URLSearchParams(location.search);
  const exportUrl = `/app/codes/export?${exportParams.toString()}`;
  const { downloading: exporting, download } = useDownload("codes.csv");

  const outcome = fetcher.data;
  const outcomeBanner = useFocusOnAnswer<BannerHandles>(fetcher.state === "idle" ? outcome : undefined);
  const declinedBanner = useFocusOnAnswer<BannerHandles>(declined ? declined : undefined);
  const busyCode = fetcher.state !== "idle" ? String(fetcher.formData?.get("code") ?? "") : null;
  const tableRows = rows.map((row) => [
    <Text key="code" as="span" fontWeight="semibold">
      {row.code}
    </Text>,
    row.orders,
    `${row.hijacked} (${row.hijackedShare})`,
    row.discountOnHijacked,
    row.redirectedOnHijacked,
    // First and last on one line, by day: the table stays narrow enough for the admin's frame.
    row.seenText ?? t("common.none"),
    row.deactivation ? (
      <BlockStack key="state" gap="100" inlineAlign="start">
        <Badge tone="success">{t("codes.switchedOff")}</Badge>
        {/* DataTable cells do not wrap: this one may, or the table outgrows the admin's frame. */}
        <div style={{ whiteSpace: "normal", maxWidth: 160 }}>
          <Text as="span" variant="bodySm" tone="subdued">
            {t("codes.switchedOffBy", {
              time: shownTime(times, row.deactivation.at),
              user: row.deactivation.userId
                ? t("codes.staffMember", { id: row.deactivation.userId })
                : t("codes.someone"),
            })}
          </Text>
        </div>
      </BlockStack>
    ) : (
      <Button
        key="action"
        size="slim"
        loading={busyCode === row.code}
        onClick={() => void startSwitchOff(row.code)}
        accessibilityLabel={t("codes.switchOffLabel", { code: row.code })}
      >
        {t("codes.switchOff")}
      </Button>
    ),
  ]);

  return (
    <AdminPage
      title={t("codes.title")}
      primaryAction={{ content: t("codes.export"), onAction: () => void download(exportUrl), loading: exporting }}
    >
      {scopes === "missing" ? (
        <Banner tone="info" title={t("codes.scopesTitle")}>
          <p>{t("codes.scopesBody")}</p>
        </Banner>
      ) : null}
      {declined ? (
        <Banner ref={declinedBanner} tone="warning" onDismiss={() => setDeclined(false)}>
          <p>{t("codes.scopesDeclined")}</p>
        </Banner>
      ) : null}
      {outcome && fetcher.state === "idle" ? (
        outcome.ok ? (
          <Banner ref={outcomeBanner} tone="success">
            <p>{t("codes.doneBanner", { code: outcome.code })}</p>
          </Banner>
        ) : (
          <Banner ref={outcomeBanner} tone="critical">
            <p>
              {t(`codes.failed.${outcome.reason}`, { code: outcome.code })}
              {outcome.reason === "unavailable" || outcome.reason === "refused" ? ` (${outcome.message})` : ""}
            </p>
          </Banner>
        )
      ) : null}
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
      <Card padding="0">
        {rows.length === 0 ? (
          <div style={{ padding: 16 }}>
            <EmptyNote>{t("codes.empty")}</EmptyNote>
          </div>
        ) : (
          <ResponsiveTable
            columnContentTypes={["text", "numeric", "numeric", "numeric", "numeric", "text", "text"]}
            headings={[
              t("codes.columnCode"),
              t("codes.columnOrders"),
              t("codes.columnHijacked"),
              t("codes.columnDiscount"),
              t("codes.columnRedirected"),
              t("codes.columnSeen"),
              t("codes.columnState"),
            ]}
            rows={tableRows}
          />
        )}
      </Card>
      <Text as="p" tone="subdued">
        {t("codes.help")}
      </Text>
      {rows.length >= limit ? (
        <Text as="p" tone="subdued">
          {t("codes.limited", { count: limit })}
        </Text>
      ) : null}
      {/* Mounted only while asking: Polaris keeps a closing modal's focus trap for its 200ms
          fade, and an answer that came back sooner lost its focus to it. */}
      {confirming !== null ? (
        <Modal
          open
          onClose={() => setConfirming(null)}
          title={t("codes.confirmTitle", { code: confirming })}
          primaryAction={{ content: t("codes.confirmAction"), destructive: true, onAction: confirm }}
          secondaryActions={[{ content: t("codes.cancel"), onAction: () => setConfirming(null) }]}
        >
          <Modal.Section>
            <p>{t("codes.confirmBody", { code: confirming })}</p>
          </Modal.Section>
        </Modal>
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
