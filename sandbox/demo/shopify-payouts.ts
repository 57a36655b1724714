import { randomUUID } from "node:crypto";
import { scopesFor, type ShopifyMethod } from "../../app/payouts/methods";
import type { Stack } from "./run-scenario";
import type { ScenarioPayout } from "./scenario";
import { decimal, payoutsPage, submit, submitted, until, type PageBalance } from "./payouts-page";
import type { PayoutReport } from "./payouts";

// The scenario's store credit and gift card payouts, as a merchant makes them on the Payouts
// page: the shop's "create a customer account for a creator who has none" turned on (the demo's
// creators have no customer account in the new shop), the method chosen for the creator once the
// optional scopes it needs are granted (App Bridge's scopes.request, accepted: the stand-in is
// told directly, as the Codes page's switch-off is), then **Pay as store credit** / **Send gift
// cards** for the creator's balance; the app's worker finds or creates the customer and pays in
// the stand-in. Shopify pays in the shop's currency only: the app refuses a balance in another,
// and the demo reports that refusal as the page shows it.

export interface ShopifyPending {
  payout: ScenarioPayout & { method: ShopifyMethod };
  balance: PageBalance;
  runId: string;
}

/**
 * Before any method is chosen: creating customers turned on with the shop's default method as it
 * is (the shop-wide form carries both), and the shop's currency known to the app (read from
 * Shopify when the shop was installed).
 */
export async function prepareShopifyPayouts(stack: Stack): Promise<void> {
  const page = await payoutsPage(stack);
  if (!page.shopCurrency)
    throw new Error("the app does not know the shop's currency, which store credit and gift cards are paid in");
  const { defaultMethod } = page.payoutSettings;
  // The page asks for the default method's scopes with the box ticked; manual or PayPal needs none.
  grantScopes(stack, defaultMethod);
  await submitted(
    stack,
    new URLSearchParams({ intent: "method", creatorId: "", method: defaultMethod, createCustomers: "on" }),
  );
}

/** The merchant accepted the scopes the page asks for before saving `method` (creating customers on). */
export function grantScopes(stack: Stack, method: string): void {
  if (method !== "store_credit" && method !== "gift_card") return;
  stack.shopify.store.grantScopes(stack.shop, scopesFor(method, true));
}

/**
 * The balance sent as the creator's method: a run the worker will pay, or the page's refusal
 * (another currency than the shop's), reported as failed with its words; the balance stays payable.
 */
export async function startShopifyRun(
  stack: Stack,
  payout: ShopifyPending["payout"],
  balance: PageBalance,
): Promise<ShopifyPending | PayoutReport> {
  const answer = await submit(
    stack,
    new URLSearchParams({
      intent: "shopify-run",
      method: payout.method,
      formToken: randomUUID(),
      balance: balance.key,
      [`shown:${balance.key}`]: balance.balanceMinor,
    }),
  );
  if (answer.ok) return { payout, balance, runId: answer.runId! };
  return {
    creatorId: payout.creatorId,
    method: payout.method,
    amount: decimal(balance.balanceMinor, balance.currency),
    currency: balance.currency,
    status: "failed",
    providerId: null,
    note: `the app refused it: ${Object.values(answer.errors).join(" ")}`,
  };
}

/**
 * Waits for the app's worker to end each run's payout (paid, or given back when Shopify refused
 * it), then reports it: the store credit transaction's or gift card's id as Shopify answered it.
 */
export async function settleShopify(stack: Stack, pending: ShopifyPending[], reports: PayoutReport[]): Promise<void> {
  const runIds = pending.map((p) => p.runId);
  const ended = await until(
    "the app's worker to pay its store credit and gift card runs",
    async () => {
      const rows = await stack.db.payout.findMany({ where: { shop: stack.shop, runId: { in: runIds } } });
      return rows.length === runIds.length && rows.every((p) => p.settledAt || p.voidedAt) ? rows : null;
    },
    // A run whose answer was lost would look again after two minutes: the demo loses none.
    60_000,
  ).catch(async (error: Error) => {
    const runs = await stack.db.payoutRun.findMany({ where: { shop: stack.shop, id: { in: runIds } } });
    throw new Error(
      `${error.message} (runs: ${runs.map((r) => `${r.method} ${r.state}${r.lastError ? `: ${r.lastError}` : ""}`).join("; ")})`,
    );
  });
  for (const { payout, balance, runId } of pending) {
    const row = ended.find((p) => p.runId === runId)!;
    reports.push({
      creatorId: payout.creatorId,
      method: payout.method,
      amount: decimal(balance.balanceMinor, balance.currency),
      currency: balance.currency,
      status: row.settledAt ? "paid" : "failed",
      providerId: row.settledAt ? row.providerItemId : null,
      ...(!row.settledAt && { note: row.voidReason ?? "Shopify did not make the payout" }),
    });
  }
}
