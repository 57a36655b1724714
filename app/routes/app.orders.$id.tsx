import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, InlineStack, Layout, List, Page, Text } from "@shopify/polaris";
import type { ReactNode } from "react";
import { OutcomeBadge } from "../components/OutcomeBadge";
import { PageError } from "../components/PageError";
import { formatTime } from "../components/format";
import { getOrderDetail } from "../dashboard/order-detail.server";
import { hasMessage, t } from "../i18n";
import { authenticate } from "../shopify.server";
import { retryVerificationNow, type ManualRetryResult } from "../verification/manual-retry.server";

// One order: what arrived, each attempt, the verdict, the tag, the commission; "Retry now"
// for orders that ended without a verdict while their click is still valid.

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const order = await getOrderDetail(session.shop, params.id ?? "");
  if (!order) throw json({ message: "not found" }, { status: 404 });
  return json({ order });
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const result = await retryVerificationNow(session.shop, params.id ?? "");
  return json<ManualRetryResult>(result, { status: result.ok ? 200 : result.reason === "not-found" ? 404 : 409 });
};

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <InlineStack gap="200" wrap={false}>
      <div style={{ minWidth: 200 }}>
        <Text as="span" tone="subdued">
          {label}
        </Text>
      </div>
      <Text as="span" breakWord>
        {children}
      </Text>
    </InlineStack>
  );
}

const none = () => t("common.none");

function sourceLabel(source: string | null): string {
  if (source === "note_attributes") return t("order.sourceNote");
  if (source === "landing_site") return t("order.sourceLanding");
  return t("order.sourceNone");
}

function retryMessage(result: ManualRetryResult): { tone: "success" | "warning"; text: string } {
  if (result.ok) return { tone: "success", text: t("order.retryQueued") };
  if (result.reason === "not-found") return { tone: "warning", text: t("order.retryNotFound") };
  if (result.reason === "click-expired") return { tone: "warning", text: t("order.retryExpired") };
  return { tone: "warning", text: t("order.retryNotRetryable") };
}

export default function OrderPage() {
  const { order } = useLoaderData<typeof loader>();
  const retried = useActionData<typeof action>() as ManualRetryResult | undefined;
  const navigation = useNavigation();
  const retrying = navigation.state === "submitting";
  const message = retried ? retryMessage(retried) : null;
  const c = order.commission;

  return (
    <Page
      backAction={{ content: t("common.back"), url: "/app" }}
      title={t("order.title", { name: order.orderName ?? `#${order.orderId}` })}
      titleMetadata={<OutcomeBadge outcome={order.outcome} />}
      secondaryActions={[{ content: t("order.openInShopify"), url: order.adminOrderUrl, target: "_top" }]}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            {message ? <Banner tone={message.tone}>{message.text}</Banner> : null}
            {order.canRetry && !retried?.ok ? (
              <Card>
                <InlineStack align="space-between" blockAlign="center">
                  <Text as="p">{t("order.retryHelp")}</Text>
                  <Form method="post">
                    <Button submit variant="primary" loading={retrying}>
                      {t("order.retry")}
                    </Button>
                  </Form>
                </InlineStack>
              </Card>
            ) : null}

            <Card>
              <BlockStack gap="200">
                <Row label={t("order.status")}>{hasMessage(`state.${order.state}`) ? t(`state.${order.state}`) : order.state}</Row>
                {order.reason ? <Row label={t("order.reason")}>{order.reason}</Row> : null}
                {order.lastError ? <Row label={t("order.lastError")}>{order.lastError}</Row> : null}
                <Row label={t("order.orderCreatedAt")}>{formatTime(order.orderCreatedAt)}</Row>
              </BlockStack>
            </Card>

            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("order.arrived")}
                </Text>
                <Row label={t("order.captureSource")}>{sourceLabel(order.arrived.captureSource)}</Row>
                <Row label={t("order.clickId")}>{order.arrived.clickId ?? none()}</Row>
                <Row label={t("order.arrivedTag")}>{order.arrived.arrivedTag ?? none()}</Row>
                <Row label={t("order.capturedAt")}>{formatTime(order.arrived.capturedAt)}</Row>
                <Row label={t("order.deadlineAt")}>{formatTime(order.arrived.deadlineAt)}</Row>
                <Row label={t("order.tagHistory")}>
                  {order.arrived.tagHistory.length === 0
                    ? t("order.tagHistoryEmpty")
                    : order.arrived.tagHistory.map((h) => `${h.tag} (${formatTime(h.at || null)})`).join(" → ")}
                </Row>
              </BlockStack>
            </Card>

            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("order.attempts")}
                </Text>
                {order.attempts.length === 0 ? (
                  <Text as="p" tone="subdued">
                    {t("order.attemptsEmpty")}
                  </Text>
                ) : (
                  <List type="number">
                    {order.attempts.map((a) => (
                      <List.Item key={`${a.number}-${a.step}-${a.startedAt}`}>
                        {t("order.attemptRow", { number: a.number, step: a.step, result: a.result })} — {formatTime(a.startedAt)}
                        {a.error ? ` — ${a.error}` : ""}
                      </List.Item>
                    ))}
                  </List>
                )}
              </BlockStack>
            </Card>

            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("order.verdict")}
                </Text>
                <Row label={t("order.expectedTag")}>{order.verdict.expectedTag ?? none()}</Row>
                <Row label={t("order.creator")}>{order.verdict.creatorId ?? none()}</Row>
                <Row label={t("order.verdictText")}>{order.verdict.verdict ?? none()}</Row>
                <Row label={t("order.recorded")}>
                  {order.verdict.recorded === null ? none() : order.verdict.recorded ? t("common.yes") : t("common.no")}
                </Row>
              </BlockStack>
            </Card>

            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("order.tagWritten")}
                </Text>
                {order.tagging.taggedAt ? (
                  <>
                    <Row label={t("settings.hijackTag")}>{order.tagging.hijackTag ?? none()}</Row>
                    <Row label={t("order.taggedAt")}>{formatTime(order.tagging.taggedAt)}</Row>
                  </>
                ) : (
                  <Text as="p" tone="subdued">
                    {t("order.notTagged")}
                  </Text>
                )}
              </BlockStack>
            </Card>

            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("order.commission")}
                </Text>
                {c ? (
                  <>
                    <Row label={t("order.amount")}>{`${c.currency} ${c.amount}`}</Row>
                    <Row label={t("order.creator")}>{c.creatorId}</Row>
                    <Row label={t("order.rate")}>{`${c.rate}%`}</Row>
                    <Row label={t("order.orderValue")}>{`${c.currency} ${c.orderValue}`}</Row>
                    <Row label={t("order.commissionStatus")}>{hasMessage(`ledger.statusLabel.${c.status}`) ? t(`ledger.statusLabel.${c.status}`) : c.status}</Row>
                    <Row label={t("order.redirected")}>{c.redirected ? t("common.yes") : t("common.no")}</Row>
                  </>
                ) : (
                  <Text as="p" tone="subdued">
                    {t("order.commissionNone")}
                  </Text>
                )}
              </BlockStack>
            </Card>
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}
