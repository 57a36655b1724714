import { Link as RemixLink } from "@remix-run/react";
import { Badge, Banner, BlockStack, InlineStack, Text } from "@shopify/polaris";
import type { OrderCreators } from "../creators/order-creators.server";
import { t } from "../i18n";
import { creatorPageUrl } from "./CreatorStandingBadge";
import { CreatorName } from "./CreatorName";
import { SectionCard } from "./SectionCard";

// On an order's page: a banner for each held creator the order names (suspected or blocked),
// with a link to the creator's page, and the creators whose clicks it named without crediting
// them, with what its evidence says of each click (app/creators/order-creators.server.ts).

type Names = Record<string, string | undefined>;

export function HeldCreatorBanners({ creators, names }: { creators: OrderCreators; names: Names }) {
  return creators.held.map(({ creatorId, state }) => {
    const creator = names[creatorId] || creatorId;
    return (
      <Banner
        key={creatorId}
        tone={state === "blocked" ? "critical" : "warning"}
        action={{ content: t("order.creatorHeldAction", { creator }), url: creatorPageUrl(creatorId) }}
      >
        <p data-testid="creator-held">{t(`order.creatorHeld.${state}`, { creator })}</p>
      </Banner>
    );
  });
}

export function OrderClaimsCard({ creators, names }: { creators: OrderCreators; names: Names }) {
  if (creators.claims.length === 0) return null;
  return (
    <SectionCard title={t("order.claimsTitle")}>
      <Text as="p" tone="subdued">
        {t("order.claimsHelp")}
      </Text>
      <div id="order-claims">
        <BlockStack gap="200">
          {creators.claims.map((claim) => (
            <BlockStack key={claim.creatorId} gap="050">
              <InlineStack gap="200" blockAlign="center" wrap>
                <CreatorName creatorId={claim.creatorId} name={names[claim.creatorId]} />
                {claim.tampering ? <Badge tone="critical">{t("order.claimTampering")}</Badge> : null}
                <RemixLink to={creatorPageUrl(claim.creatorId)}>
                  {t("creators.openFor", { creator: names[claim.creatorId] || claim.creatorId })}
                </RemixLink>
              </InlineStack>
              <Text as="p">
                {t("order.claimRow", {
                  outcome: t(`order.claimOutcome.${claim.outcome}`),
                  signals:
                    claim.signals.length === 0
                      ? t("order.claimNoSignals")
                      : claim.signals.map((signal) => t(`creators.signal.${signal}`)).join("; "),
                })}
              </Text>
            </BlockStack>
          ))}
        </BlockStack>
      </div>
    </SectionCard>
  );
}
