import { randomUUID } from "node:crypto";
import type { PaypalStandin } from "../paypal/server";
import { BROWSER_USER_AGENT } from "../storefront/chromium";
import { formatMinor } from "../../app/units/money";
import { sessionToken, type Stack } from "./run-scenario";
import type { ScenarioPayout } from "./scenario";

// The scenario's `payouts`, played once every order has settled: the holds are made to pass (the
// records' hold ends moved to now, as if its days had gone by; the app's own approval sweep then
// approves them), and each entry pays that creator's whole payable balance by its method through
// the Payouts page, as a merchant would: PayPal through **Send with PayPal** and the PayPal
// stand-in (which ends each item as the entry's `paypalOutcome` says), by hand through
// **Record payout**. Store credit and gift cards are not in the app yet: such an entry is reported
// as not available, and its balance stays payable.

export interface PayoutReport {
  creatorId: string;
  method: ScenarioPayout["method"];
  amount: string;
  currency: string;
  status: "paid" | "returned" | "failed" | "unclaimed";
  /** PayPal's payout item id; null for a payment by hand (or one not made). */
  providerId: string | null;
  /** Only when nothing was paid because the method is not in the app yet. */
  note?: string;
}

export interface PayableReport {
  creatorId: string;
  amount: string;
  currency: string;
}

interface PageBalance {
  key: string;
  creatorId: string;
  currency: string;
  balanceMinor: string;
  payable: boolean;
}

const PAGE = "/app/payouts";
const ROUTE = "routes/app.payouts";
const NOT_YET = new Set(["store_credit", "gift_card"]);

async function admin(stack: Stack, body?: URLSearchParams): Promise<unknown> {
  const response = await fetch(`${stack.appUrl}${PAGE}?_data=${encodeURIComponent(ROUTE)}`, {
    method: body ? "POST" : "GET",
    headers: {
      authorization: `Bearer ${sessionToken(stack)}`,
      "user-agent": BROWSER_USER_AGENT,
      ...(body && { "content-type": "application/x-www-form-urlencoded" }),
    },
    body,
  });
  const answer = (await response.json().catch(() => null)) as { ok?: boolean; errors?: unknown } | null;
  if (!response.ok || (body && !answer?.ok))
    throw new Error(
      `the Payouts page refused ${body?.get("intent") ?? "to load"}: HTTP ${response.status} ${JSON.stringify(answer?.errors ?? "")}`,
    );
  return answer;
}

const balances = async (stack: Stack) => ((await admin(stack)) as { balances: PageBalance[] }).balances;
const decimal = (minor: string, currency: string) => formatMinor(minor, currency).replace(/,/g, "");

async function until<T>(what: string, read: () => Promise<T | null | undefined | false>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
  await admin(
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

const emailOf = (creatorId: string) => `${creatorId.replace(/[^A-Za-z0-9._-]/g, "_")}@creators.demo`;

/** The creator's email, which PayPal pays to, saved on the Creators page. */
async function saveEmail(stack: Stack, creatorId: string): Promise<void> {
  const response = await fetch(`${stack.appUrl}/app/creators?_data=${encodeURIComponent("routes/app.creators")}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${sessionToken(stack)}`,
      "user-agent": BROWSER_USER_AGENT,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ creatorId, name: creatorId, email: emailOf(creatorId), note: "" }),
  });
  if (!response.ok) throw new Error(`the Creators page refused ${creatorId}'s email: HTTP ${response.status}`);
}

const STATUS: Record<string, PayoutReport["status"]> = {
  SUCCESS: "paid",
  RETURNED: "returned",
  FAILED: "failed",
  UNCLAIMED: "unclaimed",
};

/** Plays the scenario's payouts; the report's `payouts` and `payable` (after them). */
export async function playPayouts(
  stack: Stack,
  payouts: ScenarioPayout[],
  paypal: PaypalStandin | null,
): Promise<{ payouts: PayoutReport[]; payable: PayableReport[] }> {
  const reports: PayoutReport[] = [];
  if (payouts.length > 0) {
    await passHolds(stack);
    const sent = payouts.filter((p) => p.method === "paypal");
    if (sent.length > 0) {
      if (!paypal) throw new Error("a PayPal payout needs the PayPal stand-in");
      await connectPaypal(stack, paypal);
    }
    for (const payout of payouts.filter((p) => !NOT_YET.has(p.method))) {
      await admin(stack, new URLSearchParams({ intent: "method", creatorId: payout.creatorId, method: payout.method }));
      if (payout.method === "paypal") {
        await saveEmail(stack, payout.creatorId);
        // RETURNED is an unclaimed payment PayPal gives back after its 30 days.
        if (payout.paypalOutcome !== "SUCCESS")
          paypal!.plan(
            emailOf(payout.creatorId),
            payout.paypalOutcome === "RETURNED" ? "UNCLAIMED" : payout.paypalOutcome,
          );
      }
    }
    const due = (await balances(stack)).filter((b) => b.payable);
    const pending: { payout: ScenarioPayout; balance: PageBalance }[] = [];
    for (const payout of payouts)
      for (const balance of due.filter((b) => b.creatorId === payout.creatorId)) {
        const line = { creatorId: payout.creatorId, method: payout.method, currency: balance.currency };
        const amount = decimal(balance.balanceMinor, balance.currency);
        if (NOT_YET.has(payout.method)) {
          reports.push({
            ...line,
            amount,
            status: "failed",
            providerId: null,
            note: `${payout.method} is not available yet: nothing was paid, the balance stays payable`,
          });
          continue;
        }
        const form = new URLSearchParams({
          intent: payout.method === "paypal" ? "paypal-run" : "record",
          formToken: randomUUID(),
          reference: `demo payout to ${payout.creatorId}`,
          paidOn: new Date().toISOString().slice(0, 10),
          balance: balance.key,
          [`shown:${balance.key}`]: balance.balanceMinor,
        });
        await admin(stack, form);
        if (payout.method === "manual") reports.push({ ...line, amount, status: "paid", providerId: null });
        else pending.push({ payout, balance });
      }
    if (pending.length > 0) await settlePaypal(stack, paypal!, pending, reports);
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
  pending: { payout: ScenarioPayout; balance: PageBalance }[],
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
