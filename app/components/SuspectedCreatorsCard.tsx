import { Link as RemixLink } from "@remix-run/react";
import { BlockStack, InlineStack, Text } from "@shopify/polaris";
import type { SuspectedCreator } from "../creators/creators-page.server";
import { t } from "../i18n";
import { creatorPageUrl, CreatorStandingBadge } from "./CreatorStandingBadge";
import { SectionCard } from "./SectionCard";

/** The shop's suspected creators, above the totals: each with why in a line and a link to decide. */
export function SuspectedCreatorsCard({
  suspected,
  names,
}: {
  suspected: SuspectedCreator[];
  names: Record<string, { name?: string } | undefined>;
}) {
  if (suspected.length === 0) return null;
  return (
    <SectionCard title={t("creators.suspectedTitle")}>
      <div id="suspected-creators">
        <BlockStack gap="200">
          <Text as="p" tone="subdued">
            {t("creators.suspectedHelp")}
          </Text>
          {suspected.map((creator) => {
            const name = names[creator.creatorId]?.name || creator.creatorId;
            return (
              <InlineStack key={creator.creatorId} gap="200" blockAlign="center" wrap>
                <RemixLink to={creatorPageUrl(creator.creatorId)}>
                  {t("creators.reviewCreator", { creator: name })}
                </RemixLink>
                <CreatorStandingBadge state="suspected" />
                <Text as="span" tone="subdued">
                  {creator.line}
                </Text>
              </InlineStack>
            );
          })}
        </BlockStack>
      </div>
    </SectionCard>
  );
}
