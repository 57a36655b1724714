import { Link as RemixLink } from "@remix-run/react";
import { BlockStack, InlineStack, Text } from "@shopify/polaris";
import type { CreatorAttention } from "../dashboard/creator-attention.server";
import { t } from "../i18n";
import { creatorPageUrl, CreatorStandingBadge } from "./CreatorStandingBadge";

// The dashboard's "Needs your attention" on creators: the suspected ones, each linking to their
// page and saying what of theirs is held; and the contested orders grouped by the creators they
// name, each group linking to that creator, where one decision settles all of theirs.

type Names = Record<string, string | undefined>;

export function SuspectedCreators({ creators, names }: { creators: CreatorAttention; names: Names }) {
  const { suspected } = creators;
  if (suspected.count === 0) return null;
  return (
    <BlockStack gap="100">
      <Text as="p" id="attention-suspected">
        {t("dashboard.attentionSuspected", { count: suspected.count })}
      </Text>
      {suspected.creators.map((creator) => (
        <InlineStack key={creator.creatorId} gap="200" blockAlign="center" wrap>
          <RemixLink to={creatorPageUrl(creator.creatorId)}>{names[creator.creatorId] || creator.creatorId}</RemixLink>
          <CreatorStandingBadge state="suspected" />
          <Text as="span" tone="subdued">
            {creator.held.length === 0
              ? t("dashboard.attentionSuspectedNothingHeld")
              : t("dashboard.attentionSuspectedCreator", { held: creator.held.join(", ") })}
          </Text>
        </InlineStack>
      ))}
    </BlockStack>
  );
}

export function ReviewByCreator({ creators, names }: { creators: CreatorAttention; names: Names }) {
  if (creators.reviewByCreator.length === 0) return null;
  return (
    <BlockStack gap="100">
      <Text as="p" tone="subdued">
        {t("dashboard.attentionReviewByCreator")}
      </Text>
      <div id="attention-review-creators">
        <InlineStack gap="300" wrap>
          {creators.reviewByCreator.map((group) => (
            <InlineStack key={group.creatorId} gap="100" blockAlign="center">
              <RemixLink to={creatorPageUrl(group.creatorId)}>{names[group.creatorId] || group.creatorId}</RemixLink>
              <Text as="span">{t("dashboard.attentionReviewCreator", { count: group.orders })}</Text>
              <CreatorStandingBadge state={group.state} />
            </InlineStack>
          ))}
        </InlineStack>
      </div>
    </BlockStack>
  );
}
