import { Banner } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import type { Ref } from "react";
import type { CreatorsAnswer } from "../creators/creators-action.server";
import { t } from "../i18n";

/** What a decision on a creator, or undoing one, did: the Creators page's answer, focused when it comes. */
export function CreatorAnswer({
  answer,
  answerRef,
  names,
}: {
  answer: CreatorsAnswer | undefined;
  answerRef: Ref<BannerHandles>;
  names: Record<string, { name?: string } | undefined>;
}) {
  if (!answer || answer.intent === "profile") return null;
  let text: string;
  if (answer.intent === "decide")
    text = answer.ok
      ? t(`creators.decision.done.${answer.kind}`, {
          creator: names[answer.creatorId]?.name || answer.creatorId,
          count: answer.moved + answer.reversed,
          moved: answer.moved,
          reversed: answer.reversed,
        })
      : t(`creators.decision.error.${answer.error}`);
  else
    text = answer.ok
      ? t("creators.decision.undone", { count: answer.restored })
      : t(`creators.decision.error.${answer.error}`, { count: answer.paid ?? 0 });
  return (
    <Banner ref={answerRef} tone={answer.ok ? "success" : "warning"}>
      <p id="creator-answer">{text}</p>
    </Banner>
  );
}
