import { Badge } from "@shopify/polaris";
import { t } from "../i18n";
import type { Outcome } from "../verification/outcomes";

type Tone = "success" | "critical" | "warning" | "attention" | "info" | undefined;

const TONES: Record<Outcome, Tone> = {
  matched: "success",
  hijacked: "critical",
  failed: "warning",
  rejected: "warning",
  expired: "attention",
  unattributed: undefined,
  skipped: undefined,
  invalid: undefined,
};

export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  const key = outcome ?? "pending";
  return <Badge tone={outcome ? TONES[outcome as Outcome] : "info"}>{t(`outcome.${key}`)}</Badge>;
}
