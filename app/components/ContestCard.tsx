import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, ChoiceList, Text } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { useState, type Ref } from "react";
import { hasMessage, t } from "../i18n";
import { CreatorName } from "./CreatorName";
import { SectionCard } from "./SectionCard";

// A contested order on its page (docs/attribution.md): why the commission is held, each claim
// with its evidence, and the merchant's choice of one creator or none. Once decided, the card
// says what was decided, when and by whom.

export interface ContestView {
  reason: string;
  claims: {
    clickId: string;
    witnesses: string[];
    firstSeenAt: string | null;
    arrivedTag: string | null;
    creatorNow: string | null;
  }[];
  decision: { clickId: string | null; creatorId: string | null; by: string | null; at: string } | null;
  open: boolean;
}

export type ContestAnswer =
  | { intent: "decide-contest"; ok: true; status: string; amountText: string }
  | { intent: "decide-contest"; ok: false; error: string };

export function ContestCard({
  contest,
  creatorNames,
  time,
  answer,
  answerRef,
  submitting,
}: {
  contest: ContestView;
  creatorNames: Record<string, string | undefined>;
  time: (iso: string | null | undefined) => string;
  answer: ContestAnswer | undefined;
  answerRef: Ref<BannerHandles>;
  submitting: boolean;
}) {
  const choosable = contest.claims.filter((claim) => claim.creatorNow !== null);
  const [choice, setChoice] = useState<string[]>([]);
  const name = (creatorId: string) => <CreatorName creatorId={creatorId} name={creatorNames[creatorId]} />;
  return (
    <SectionCard title={t("order.contest.title")}>
      {answer ? (
        <Banner ref={answerRef} tone={answer.ok ? "success" : "warning"}>
          {answer.ok
            ? t("order.contest.saved", { status: t(`ledger.statusLabel.${answer.status}`), amount: answer.amountText })
            : t(`order.contest.error.${answer.error}`)}
        </Banner>
      ) : null}
      <Text as="p">
        {t(
          hasMessage(`order.contest.reason.${contest.reason}`)
            ? `order.contest.reason.${contest.reason}`
            : "order.contest.reason.creators-differ",
        )}
      </Text>
      <BlockStack gap="100">
        {contest.claims.map((claim) => (
          <Text as="p" key={claim.clickId}>
            {t("order.contest.claim", {
              clickId: claim.clickId,
              witnesses: claim.witnesses.map((w) => t(`order.witnessName.${w}`)).join(", "),
              time: time(claim.firstSeenAt),
              tag: claim.arrivedTag ?? t("common.none"),
            })}
            {t("common.labelSeparator")}
            {claim.creatorNow ? name(claim.creatorNow) : t("order.contest.claimCreatorUnknown")}
          </Text>
        ))}
      </BlockStack>
      {contest.decision ? (
        <Text as="p" id="contest-decision">
          {t("order.contest.decided", {
            time: time(contest.decision.at),
            choice: contest.decision.creatorId
              ? t("order.contest.decidedCreator", {
                  creator: creatorNames[contest.decision.creatorId] ?? contest.decision.creatorId,
                })
              : t("order.contest.decidedNone"),
            by: contest.decision.by ? t("order.contest.decidedBy", { by: contest.decision.by }) : "",
          })}
        </Text>
      ) : contest.open ? (
        <Form method="post">
          <input type="hidden" name="intent" value="decide-contest" />
          <BlockStack gap="200">
            <ChoiceList
              title={t("order.contest.choose")}
              name="clickId"
              choices={[
                ...choosable.map((claim) => ({
                  label: `${creatorNames[claim.creatorNow!] ?? claim.creatorNow!} (${claim.clickId})`,
                  value: claim.clickId,
                })),
                { label: t("order.contest.creditNone"), value: "none" },
              ]}
              selected={choice}
              onChange={setChoice}
            />
            <div>
              <Button submit variant="primary" disabled={choice.length === 0} loading={submitting}>
                {t("order.contest.submit")}
              </Button>
            </div>
          </BlockStack>
        </Form>
      ) : null}
    </SectionCard>
  );
}
