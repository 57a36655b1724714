import { randomUUID } from "node:crypto";
import type { PaypalStandin } from "../paypal/server";
import { isShopifyMethod } from "../../app/payouts/methods";
import type { Stack } from "./run-scenario";
import type { ScenarioPayout } from "./scenario";
import { decimal, emailOf, payoutsPage, saveEmail, submitted, until, type PageBalance } from "./payouts-page";
import {
  grantScopes,
  prepareShopifyPayouts,
  settleShopify,
  startShopifyRun,
  type ShopifyPending,
} from "./shopify-payouts";

// The scenario's `payouts`, played once every order has settled: the holds are made to pass (the
// records' hold ends moved to now, as if its days had gone by; the app's own approval sweep then
// approves them), and each entry pays that creator's whole payable balance by its method through
// the Payouts page, as a merchant would: PayPal through **Send with PayPal** and the PayPal
// stand-in (which ends each item as the entry's `paypalOutcome` says), store credit and gift
// cards through **Pay as store credit** / **Send gift cards** and the Shopify stand-in
// (shopify-payouts.ts), by hand through **Record payout**.

export interface PayoutReport {
  creatorId: string;
  method: ScenarioPayout["method"];
  amount: string;
  currency: string;
  status: "paid" | "returned" | "failed" | "unclaimed";
  /** PayPal's payout item id, the store credit transaction's or the gift card's id; null by hand or when nothing was made. */
  providerId: string | null;
  /** Why nothing was paid, when the app or Shopify refused it. */
  note?: string;
}

export interface PayableReport {
  creatorId: string;
  amount: string;
  currency: string;
}

const balances = async (stack: Stack) => (await payoutsPage(stack)).balances;

/** The hold passes: every pending record not held is approved by the app's sweep. */
async function passHolds(stack: Stack): Promise<void> {
  const now = new Date();
  await stack.db.commission.updateMany({
    where: { shop: stack.shop, status: "pending", holdUntil: { gt: now } },
    data: { holdUntil: now },
  });
  const held = (
    await stack.db.creatorStanding.findMany({
      where: { shop: stack.shop, state: { in: ["suspected", "blocked"] } },
      select: { creatorId: true },
    })
  ).map((s) => s.creatorId);
  await until(
    "the app's approval sweep to approve the records whose hold has passed",
    async () =>
      (await stack.db.commission.count({
        where: { shop: stack.shop, status: "pending", creatorId: { notIn: held } },
      })) === 0,
  );
}

/** The shop's PayPal account saved through the Payouts page, its webhook pointing at the app. */
async function connectPaypal(stack: Stack, paypal: PaypalStandin): Promise<void> {
  const client = paypal.addClient();
  const webhookId = paypal.registerWebhook(`${stack.appUrl}/webhooks/paypal/${stack.shop}`, client.clientId);
  await submitted(
    stack,
    new URLSearchParams({
      intent: "paypal-account",
      environment: "sandbox",
      clientId: client.clientId,
      secret: client.secret,
      webhookId,
    }),
  );
}

const STATUS: Record<string, PayoutReport["status"]> = {
  SUCCESS: "paid",
  RETURNED: "returned",
  FAILED: "failed",
  UNCLAIMED: "unclaimed",
};

type PaypalPending = { payout: ScenarioPayout; balance: PageBalance };

/** Plays the scenario's payouts; the report's `payouts` and `payable` (after them). */
export async function playPayouts(
  stack: Stack,
  payouts: ScenarioPayout[],
  paypal: PaypalStandin | null,
): Promise<{ payouts: PayoutReport[]; payable: PayableReport[] }> {
  const reports: PayoutReport[] = [];
  if (payouts.length > 0) {
    await passHolds(stack);
    if (payouts.some((p) => p.method === "paypal")) {
      if (!paypal) throw new Error("a PayPal payout needs the PayPal stand-in");
      await connectPaypal(stack, paypal);
    }
    if (payouts.some((p) => isShopifyMethod(p.method))) await prepareShopifyPayouts(stack);
    for (const payout of payouts) {
      grantScopes(stack, payout.method);
      await submitted(
        stack,
        new URLSearchParams({ intent: "method", creatorId: payout.creatorId, method: payout.method }),
      );
      if (payout.method === "manual") continue;
      await saveEmail(stack, payout.creatorId);
      // RETURNED is an unclaimed payment PayPal gives back after its 30 days.
      if (payout.method === "paypal" && payout.paypalOutcome !== "SUCCESS")
        paypal!.plan(
          emailOf(payout.creatorId),
          payout.paypalOutcome === "RETURNED" ? "UNCLAIMED" : payout.paypalOutcome,
        );
    }
    const due = (await balances(stack)).filter((b) => b.payable);
    const sentPaypal: PaypalPending[] = [];
    const sentShopify: ShopifyPending[] = [];
    for (const payout of payouts)
      for (const balance of due.filter((b) => b.creatorId === payout.creatorId)) {
        if (isShopifyMethod(payout.method)) {
          const started = await startShopifyRun(stack, { ...payout, method: payout.method }, balance);
          if ("runId" in started) sentShopify.push(started);
          else reports.push(started);
          continue;
        }
        await submitted(
          stack,
          new URLSearchParams({
            intent: payout.method === "paypal" ? "paypal-run" : "record",
            formToken: randomUUID(),
            reference: `demo payout to ${payout.creatorId}`,
            paidOn: new Date().toISOString().slice(0, 10),
            balance: balance.key,
            [`shown:${balance.key}`]: balance.balanceMinor,
          }),
        );
        if (payout.method === "paypal") sentPaypal.push({ payout, balance });
        else
          reports.push({
            creatorId: payout.creatorId,
            method: payout.method,
            amount: decimal(balance.balanceMinor, balance.currency),
            currency: balance.currency,
            status: "paid",
            providerId: null,
          });
      }
    if (sentPaypal.length > 0) await settlePaypal(stack, paypal!, sentPaypal, reports);
    if (sentShopify.length > 0) await settleShopify(stack, sentShopify, reports);
    // In the scenario's order, whichever way each was paid.
    const order = (r: PayoutReport) => payouts.findIndex((p) => p.creatorId === r.creatorId);
    reports.sort((a, b) => order(a) - order(b) || (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  }
  const payable = (await balances(stack))
    .filter((b) => b.payable)
    .map((b) => ({ creatorId: b.creatorId, amount: decimal(b.balanceMinor, b.currency), currency: b.currency }));
  return { payouts: reports, payable };
}

/** Waits for the app's worker to send each run, has PayPal end the items, and waits for the app to learn it. */
async function settlePaypal(
  stack: Stack,
  paypal: PaypalStandin,
  pending: PaypalPending[],
  reports: PayoutReport[],
): Promise<void> {
  const sentPayouts = () =>
    stack.db.payout.findMany({ where: { shop: stack.shop, method: "paypal" }, include: { lines: true } });
  await until(
    "the app's worker to send its PayPal runs",
    async () => (await stack.db.payoutRun.count({ where: { shop: stack.shop, state: "intent" } })) === 0,
  );
  await paypal.advance();
  // Returned after PayPal's 30 days: only those planned so; the rest stay unclaimed.
  const returned = pending.filter((p) => p.payout.paypalOutcome === "RETURNED").map((p) => emailOf(p.payout.creatorId));
  if (returned.length > 0) await paypal.advance({ returnUnclaimed: true, receivers: returned });
  const ended = (status: string | null, expected: string) => status === expected;
  const rows = await until("the app to learn each PayPal item's end", async () => {
    const payouts = await sentPayouts();
    return pending.every(({ payout, balance }) =>
      payouts.some(
        (p) =>
          p.lines.some((l) => l.creatorId === payout.creatorId && l.currency === balance.currency) &&
          ended(p.providerStatus, payout.paypalOutcome) &&
          // A bounce is applied once its records are payable again; a payment once they are paid.
          (payout.paypalOutcome === "UNCLAIMED" || p.voidedAt !== null || p.settledAt !== null),
      ),
    )
      ? payouts
      : null;
  });
  for (const { payout, balance } of pending) {
    const row = rows.find((p) =>
      p.lines.some((l) => l.creatorId === payout.creatorId && l.currency === balance.currency),
    )!;
    reports.push({
      creatorId: payout.creatorId,
      method: "paypal",
      amount: decimal(balance.balanceMinor, balance.currency),
      currency: balance.currency,
      status: STATUS[row.providerStatus ?? ""] ?? "failed",
      providerId: row.providerItemId,
    });
  }
}
