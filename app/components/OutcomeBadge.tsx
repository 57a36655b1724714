import { Badge } from "@shopify/polaris";
import { t } from "../i18n";

type Tone = "success" | "critical" | "warning" | "attention" | "info" | undefined;

const TONES: Record<string, Tone> = {
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
  return <Badge tone={outcome ? TONES[outcome] : "info"}>{t(`outcome.${key}`)}</Badge>;
}
