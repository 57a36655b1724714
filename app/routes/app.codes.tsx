import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useFetcher, useLoaderData, useLocation } from "@remix-run/react";
import { useAppBridge } from "@shopify/app-bridge-react";
import { Banner, Modal, Text } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { useCallback, useEffect, useState } from "react";
import { codesAction, codesPageFor, type CodesAction } from "../codes/codes-page.server";
import { DISCOUNT_SCOPES } from "../codes/discount-scopes";
import { AdminPage } from "../components/AdminPage";
import { CodesFilters } from "../components/CodesFilters";
import { CodesTable } from "../components/CodesTable";
import { adminMeta } from "../components/documentTitle";
import { PageError } from "../components/PageError";
import { useDownload } from "../components/useDownload";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { requestLocale } from "../units/shop-format";

// Which discount codes ride on hijacked orders, and switching one off in Shopify.

export const meta = adminMeta(() => t("codes.title"));

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
      <CodesFilters filter={filter} />
      <CodesTable rows={rows} times={times} busyCode={busyCode} onSwitchOff={(code) => void startSwitchOff(code)} />
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
