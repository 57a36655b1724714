import { BlockStack, Button, InlineStack, Modal, Text } from "@shopify/polaris";
import { useState } from "react";
import type { DecisionKind } from "../commissions/creator-standing";
import type { CreatorView } from "../creators/creator-page.server";
import type { CreatorDecisionView } from "../creators/standing-view.server";
import { t } from "../i18n";
import { CreatorStandingBadge } from "./CreatorStandingBadge";
import { SectionCard } from "./SectionCard";

// Where a creator stands and the merchant's decision on them (docs/admin.md): the standing in
// words, why the rule suspected them and the rule itself, the decisions the standing allows,
// each behind a confirmation saying exactly what it does to the money, and the decisions made,
// newest first, the latest with Undo. Decisions post the standing's version the page showed:
// one made meanwhile by someone else is refused, not overwritten.

type Confirming = { kind: DecisionKind } | { undo: CreatorDecisionView } | null;

/** What the confirmation says a decision does, with the creator's records counted. */
function consequence(kind: DecisionKind, unpaid: CreatorView["unpaid"]): string {
  if (kind === "release") return t("creators.decision.confirm.release", { count: unpaid.pending + unpaid.approved });
  return t(`creators.decision.confirm.${kind}`, {
    count: unpaid.pending + unpaid.approved + unpaid.review,
    moved: unpaid.toAnotherCreator,
  });
}

export function CreatorDecisionsCard({
  view,
  creatorName,
  time,
  submitting,
  onDecide,
  onUndo,
}: {
  view: CreatorView;
  creatorName: string;
  time: (iso: string | null | undefined) => string;
  submitting: boolean;
  onDecide(kind: DecisionKind, version: number): void;
  onUndo(decisionId: string): void;
}) {
  const [confirming, setConfirming] = useState<Confirming>(null);
  const standing = view.standing;
  const close = () => setConfirming(null);
  const by = (who: string | null) =>
    who ? t("creators.decision.byStaff", { id: who }) : t("creators.decision.byUnknown");
  const kindText = (kind: DecisionKind) => t(`creators.decision.kind.${kind}`);
  return (
    <SectionCard title={t("creators.standing.title")} gap="300">
      <div id="creator-standing">
        <BlockStack gap="300">
          {standing ? (
            <BlockStack gap="200">
              <InlineStack gap="200" blockAlign="center">
                <CreatorStandingBadge state={standing.state} />
                <Text as="p" id="standing-summary">
                  {standing.summary}
                </Text>
              </InlineStack>
              {standing.why ? (
                <Text as="p" id="standing-why">
                  {standing.why}
                </Text>
              ) : null}
              {standing.rule ? (
                <Text as="p" tone="subdued" id="standing-rule">
                  {standing.rule}
                </Text>
              ) : null}
              {standing.firstSuspected ? (
                <Text as="p" tone="subdued">
                  {standing.firstSuspected}
                </Text>
              ) : null}
            </BlockStack>
          ) : (
            <Text as="p">{t("creators.standing.none")}</Text>
          )}
          {standing && view.decidable.length > 0 ? (
            <BlockStack gap="200">
              <Text as="h3" variant="headingSm">
                {t("creators.decision.title")}
              </Text>
              <Text as="p" tone="subdued">
                {t("creators.decision.help")}
              </Text>
              <InlineStack gap="200" wrap>
                {view.decidable.map((kind) => (
                  <Button
                    key={kind}
                    variant={kind === "release" ? "secondary" : "primary"}
                    tone={kind === "release" ? undefined : "critical"}
                    loading={submitting}
                    onClick={() => setConfirming({ kind })}
                  >
                    {kindText(kind)}
                  </Button>
                ))}
              </InlineStack>
            </BlockStack>
          ) : null}
          <BlockStack gap="200">
            <Text as="h3" variant="headingSm">
              {t("creators.decision.historyTitle")}
            </Text>
            {view.decisions.length === 0 ? (
              <Text as="p" tone="subdued">
                {t("creators.decision.historyEmpty")}
              </Text>
            ) : (
              <BlockStack gap="100">
                {view.decisions.map((decision) => (
                  <InlineStack key={decision.id} gap="200" blockAlign="center" wrap>
                    <Text as="p">
                      {t("creators.decision.historyRow", {
                        kind: t(`creators.decision.historyKind.${decision.kind}`),
                        by: by(decision.by),
                        time: time(decision.at),
                        count: decision.moved,
                      })}
                      {decision.undoneAt
                        ? ` (${t("creators.decision.historyUndone", { by: by(decision.undoneBy), time: time(decision.undoneAt) })})`
                        : null}
                    </Text>
                    {decision.canUndo ? (
                      <Button variant="plain" loading={submitting} onClick={() => setConfirming({ undo: decision })}>
                        {t("creators.decision.undo")}
                      </Button>
                    ) : null}
                  </InlineStack>
                ))}
              </BlockStack>
            )}
          </BlockStack>
        </BlockStack>
      </div>
      {/* Mounted only while open: a closing Modal takes the focus back from the answer's banner. */}
      {confirming && standing ? (
        <Modal
          open
          onClose={close}
          title={
            "kind" in confirming
              ? t(`creators.decision.confirmTitle.${confirming.kind}`, { creator: creatorName })
              : t(`creators.decision.confirmUndoTitle.${confirming.undo.kind}`, { creator: creatorName })
          }
          primaryAction={{
            content: "kind" in confirming ? kindText(confirming.kind) : t("creators.decision.undo"),
            destructive: "kind" in confirming && confirming.kind !== "release",
            onAction: () => {
              close();
              if ("kind" in confirming) onDecide(confirming.kind, standing.version);
              else onUndo(confirming.undo.id);
            },
          }}
          secondaryActions={[{ content: t("creators.decision.cancel"), onAction: close }]}
        >
          <Modal.Section>
            <Text as="p" id="decision-consequence">
              {"kind" in confirming ? consequence(confirming.kind, view.unpaid) : t("creators.decision.confirmUndo")}
            </Text>
          </Modal.Section>
        </Modal>
      ) : null}
    </SectionCard>
  );
}
