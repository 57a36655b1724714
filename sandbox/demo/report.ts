import Decimal from "decimal.js";
import type { CodeReport, OrderReport } from "./run-scenario";
import type { PayoutReport } from "./payouts";

export interface Summary {
  orders: number;
  deliveries: number;
  outcomes: Record<string, number>;
  hijackTagged: number;
  commissions: number;
  /** Commission records per status (pending, approved, paid, reversed). */
  statuses: Record<string, number>;
  commissionTotals: Record<string, string>;
  redirectedTotals: Record<string, string>;
  /** Orders decided from the landing record after the service forgot their click. */
  savedFromExpiry: number;
  tamperedCarts: number;
  /** Orders per witness whose click decided them ("none": no click reached the order). */
  witnesses: Record<string, number>;
}

export function summarise(orders: OrderReport[], deliveries: number, hijackTag: string): Summary {
  const outcomes: Record<string, number> = {};
  const totals: Record<string, Decimal> = {};
  const redirected: Record<string, Decimal> = {};
  const statuses: Record<string, number> = {};
  for (const order of orders) {
    const outcome = order.outcome ?? "pending";
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (!order.commission) continue;
    statuses[order.commission.status] = (statuses[order.commission.status] ?? 0) + 1;
    const { currency, amount } = order.commission;
    totals[currency] = (totals[currency] ?? new Decimal(0)).plus(amount);
    if (order.commission.redirected) redirected[currency] = (redirected[currency] ?? new Decimal(0)).plus(amount);
  }
  const asText = (sums: Record<string, Decimal>) =>
    Object.fromEntries(Object.entries(sums).map(([currency, sum]) => [currency, sum.toFixed()]));
  return {
    orders: orders.length,
    deliveries,
    outcomes,
    hijackTagged: orders.filter((order) => order.tags.includes(hijackTag)).length,
    commissions: orders.filter((order) => order.commission).length,
    statuses,
    commissionTotals: asText(totals),
    redirectedTotals: asText(redirected),
    savedFromExpiry: orders.filter((order) => order.source === "landing").length,
    tamperedCarts: orders.filter((order) => order.tampered).length,
    witnesses: orders.reduce<Record<string, number>>((counts, order) => {
      const witness = order.witness ?? "none";
      counts[witness] = (counts[witness] ?? 0) + 1;
      return counts;
    }, {}),
  };
}

export function formatTable(orders: OrderReport[]): string {
  const header = [
    "order",
    "ref",
    "outcome",
    "decided from",
    "witness",
    "shopify tags",
    "credited creator",
    "commission",
    "status",
    "redirected",
  ];
  const rows = orders.map((order) => [
    order.orderName,
    order.ref,
    order.outcome ?? "(none)",
    (order.source ?? "-") + (order.tampered ? " (tampered cart)" : ""),
    order.witness ?? "-",
    order.tags.join(", ") || "-",
    order.commission?.creatorId ?? "-",
    order.commission ? `${order.commission.amount} ${order.commission.currency}` : "-",
    order.commission?.status ?? "-",
    order.commission ? (order.commission.redirected ? "yes" : "no") : "-",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

export function formatSummary(summary: Summary): string {
  const outcomes = Object.entries(summary.outcomes)
    .map(([outcome, count]) => `${outcome} ${count}`)
    .join(", ");
  const money = (totals: Record<string, string>) =>
    Object.entries(totals)
      .map(([currency, total]) => `${total} ${currency}`)
      .join(", ") || "none";
  return [
    `${summary.orders} orders from ${summary.deliveries} webhook deliveries: ${outcomes}`,
    `${summary.hijackTagged} hijacked orders tagged in Shopify; ${summary.commissions} commission records (${
      Object.entries(summary.statuses)
        .map(([status, count]) => `${status} ${count}`)
        .join(", ") || "none"
    })`,
    `Commission owed after edits, refunds and cancellations: ${money(summary.commissionTotals)} (redirected to the rightful creator: ${money(summary.redirectedTotals)})`,
    `Landing record: ${summary.savedFromExpiry} saved from expiry, ${summary.tamperedCarts} tampered cart${summary.tamperedCarts === 1 ? "" : "s"} judged on it`,
    `Click captured by: ${Object.entries(summary.witnesses)
      .map(([witness, count]) => `${witness} ${count}`)
      .join(", ")}`,
  ].join("\n");
}

/** One line per discount code, after the summary; nothing when no order carried one. */
export function formatCodes(codes: Record<string, CodeReport>): string {
  const lines = Object.entries(codes).map(
    ([code, c]) =>
      `  ${code}: ${c.orders} order${c.orders === 1 ? "" : "s"}, ${c.hijacked} hijacked${c.deactivated ? ", switched off" : ""}`,
  );
  return lines.length > 0 ? `\nDiscount codes:\n${lines.join("\n")}` : "";
}

/** What a payout's provider id names, by method. */
const PROVIDER_ITEM: Record<PayoutReport["method"], string> = {
  paypal: "PayPal item",
  store_credit: "store credit transaction",
  gift_card: "gift card",
  manual: "",
};

/** One line per scenario payout, after the codes; nothing when the scenario paid nobody. */
export function formatPayouts(payouts: PayoutReport[]): string {
  const lines = payouts.map(
    (p) =>
      `  ${p.creatorId}: ${p.amount} ${p.currency} by ${p.method}, ${p.status}${p.providerId ? ` (${PROVIDER_ITEM[p.method]} ${p.providerId})` : ""}${p.note ? `: ${p.note}` : ""}`,
  );
  return lines.length > 0 ? `\nPayouts:\n${lines.join("\n")}` : "";
}
