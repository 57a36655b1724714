import { Link as RemixLink, useSearchParams } from "@remix-run/react";
import { BlockStack, Box, InlineStack, Select, Text } from "@shopify/polaris";
import type { CreatorView, EvidenceCount } from "../creators/creator-page.server";
import { localePath, t } from "../i18n";
import { PERIODS } from "../units/periods";
import { SectionCard } from "./SectionCard";

// A creator's evidence in the period (app/creators/creator-page.server.ts): each count as the
// sentence the loader wrote, with its latest orders a click away, then the signals their
// claims carry and what their clicks say. Counts at zero fold into one line.

function CountLine({ item }: { item: EvidenceCount }) {
  return (
    <Box padding="200" background="bg-surface-secondary" borderRadius="200">
      <BlockStack gap="100">
        <Text as="p" id={`evidence-${item.key.replace(":", "-")}`}>
          {item.sentence}
        </Text>
        {item.orders.length > 0 ? (
          <InlineStack gap="200" wrap>
            {item.orders.map((order) => (
              <RemixLink key={order.id} to={localePath(`/app/orders/${order.id}`)}>
                {order.orderName ?? `#${order.orderId}`}
              </RemixLink>
            ))}
            {item.count > item.orders.length ? (
              <Text as="span" tone="subdued">
                {t("creators.evidence.moreOrders", { count: item.count - item.orders.length })}
              </Text>
            ) : null}
          </InlineStack>
        ) : null}
      </BlockStack>
    </Box>
  );
}

function Counts({ items }: { items: EvidenceCount[] }) {
  const shown = items.filter((item) => item.count > 0);
  return shown.length === 0 ? null : (
    <BlockStack gap="200">
      {shown.map((item) => (
        <CountLine key={item.key} item={item} />
      ))}
    </BlockStack>
  );
}

export function CreatorEvidenceCard({ view }: { view: CreatorView }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const period = (
    <Select
      label={t("period.label")}
      labelInline
      options={PERIODS.map((days) => ({ label: t("period.option", { days }), value: String(days) }))}
      value={String(view.days)}
      onChange={(value) => {
        const next = new URLSearchParams(searchParams);
        next.set("days", value);
        setSearchParams(next);
      }}
    />
  );
  const signals = view.signals.filter((item) => item.count > 0);
  return (
    <SectionCard title={t("creators.evidence.title", { days: view.days })} gap="300">
      <div id="creator-evidence">
        <BlockStack gap="300">
          <InlineStack align="space-between" blockAlign="center" gap="200" wrap>
            <Text as="p" tone="subdued">
              {t("creators.evidence.help")}
            </Text>
            {period}
          </InlineStack>
          {view.orders === 0 && view.counts.every((item) => item.count === 0) ? (
            <Text as="p">{t("creators.evidence.nothing")}</Text>
          ) : (
            <Counts items={view.counts} />
          )}
          {signals.length > 0 ? (
            <BlockStack gap="200">
              <Text as="h3" variant="headingSm">
                {t("creators.evidence.signalsTitle")}
              </Text>
              <Counts items={signals} />
            </BlockStack>
          ) : null}
          <BlockStack gap="100">
            <Text as="h3" variant="headingSm">
              {t("creators.evidence.clicksTitle")}
            </Text>
            <Text as="p" id="evidence-clicks">
              {view.clicks.sentence}
            </Text>
            <Text as="p" id="evidence-delay">
              {view.clicks.delay}{" "}
              {view.clicks.sampled ? t("creators.evidence.delaySampled", { count: view.clicks.sampled }) : null}
            </Text>
          </BlockStack>
        </BlockStack>
      </div>
    </SectionCard>
  );
}
