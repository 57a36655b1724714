import { Badge } from "@shopify/polaris";
import { hasMessage, t } from "../i18n";
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

const STATUS_TONES: Record<string, Tone> = {
  pending: "attention",
  approved: "info",
  paid: "success",
  reversed: "critical",
  review: "warning",
};

/** A commission record's status (app/commissions/statuses.ts) as a Badge, as the ledger names it. */
export function CommissionStatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={STATUS_TONES[status]}>
      {hasMessage(`ledger.statusLabel.${status}`) ? t(`ledger.statusLabel.${status}`) : status}
    </Badge>
  );
}
