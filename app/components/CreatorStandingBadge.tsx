import { Badge } from "@shopify/polaris";
import { localePath, t } from "../i18n";

type Tone = "critical" | "warning" | "success" | "info";

const TONES: Record<string, Tone> = {
  suspected: "warning",
  blocked: "critical",
  released: "success",
  reversed: "info",
};

/** A creator's standing (app/commissions/creator-standing.ts) as a Badge; nothing for a creator never suspected. */
export function CreatorStandingBadge({ state }: { state: string | null | undefined }) {
  if (!state) return null;
  return <Badge tone={TONES[state]}>{t(`creators.standingLabel.${state}`)}</Badge>;
}

/** The creator's page on the Creators page, where their evidence and the decisions on them are. */
export function creatorPageUrl(creatorId: string): string {
  return localePath(`/app/creators?${new URLSearchParams({ creator: creatorId }).toString()}`);
}
