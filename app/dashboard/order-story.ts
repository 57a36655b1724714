import { t } from "../i18n";

// The one sentence an order page opens with: what happened to the order and what it meant for
// the money, in the merchant's words. Pure, so every verdict kind is tested without a database.

export interface StoryFacts {
  outcome: string | null;
  /** The job's state while no outcome is set: queued, processing, parked. */
  state: string;
  expectedTag: string | null;
  arrivedTag: string | null;
  creatorId: string | null;
  /** The order was tagged in Shopify, with this tag. */
  taggedWith: string | null;
  /** The commission as recorded, amount already formatted for the merchant; null: none. */
  commission: { creatorId: string; amountText: string } | null;
  /** The click's hour had ended before the order was placed (known only when the click's time is). */
  clickExpiredBeforeOrder: boolean;
  /** The verdict came from the click looked up when the shopper landed. */
  fromLanding: boolean;
}

export type StoryTone = "success" | "warning" | "critical" | "info";

export interface OrderStory {
  sentence: string;
  tone: StoryTone;
}

const TONES: Record<string, StoryTone> = {
  matched: "success",
  hijacked: "warning",
  failed: "critical",
  rejected: "critical",
};

export function orderStory(facts: StoryFacts): OrderStory {
  return { sentence: sentence(facts), tone: facts.outcome ? (TONES[facts.outcome] ?? "info") : "info" };
}

function sentence(f: StoryFacts): string {
  const creator = f.commission?.creatorId ?? f.creatorId ?? t("story.unknownCreator");
  const credit = f.commission
    ? t("story.credited", { creator: f.commission.creatorId, amount: f.commission.amountText })
    : t("story.noCredit");
  switch (f.outcome) {
    case null:
      return f.state === "parked" ? t("story.parked") : t("story.checking");
    case "matched":
      return t(f.fromLanding ? "story.matchedLanding" : "story.matched", {
        creator,
        tag: f.arrivedTag ?? f.expectedTag ?? "",
        credit,
      });
    case "hijacked": {
      const tagged = f.taggedWith ? t("story.tagged", { tag: f.taggedWith }) : t("story.notTaggedYet");
      const vars = { creator, expected: f.expectedTag ?? "", arrived: f.arrivedTag ?? "", credit, tagged };
      return f.arrivedTag === null ? t("story.hijackedStripped", vars) : t("story.hijackedSwapped", vars);
    }
    case "unattributed":
      return t("story.unattributed");
    case "expired":
      return f.clickExpiredBeforeOrder ? t("story.expiredBeforeOrder") : t("story.expired");
    case "rejected":
      return t("story.rejected");
    case "failed":
      return t("story.failed");
    case "skipped":
      return t("story.skipped");
    default:
      return t("story.invalid");
  }
}
