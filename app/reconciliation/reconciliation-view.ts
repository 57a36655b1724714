/** How a shop's reconciliation stands, as the admin shows it (times as ISO text). */
export interface ReconciliationView {
  sweptAt: string | null;
  failedAt: string | null;
  lastError: string | null;
  found: { orders: number; refunds: number; cancellations: number; edits: number };
  /** The sweep is running or due now (asked for and not yet done). */
  pending: boolean;
}
