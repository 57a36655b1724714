import { minorToAmount } from "../../../app/commissions/commission-amount";
import { DEFAULT_SETTINGS } from "../../../app/settings/defaults";
import { sessionToken, type Stack } from "../../demo/run-scenario";
import { embeddedRequest } from "../../demo/embedded-request";
import type { ArenaShop } from "../shop";
import { passTime } from "../time";

// The end of a population run, as the merchant lives it: the shop's hold passes on every
// commission (its records age past it, and the app's worker, whose approval sweep runs on its
// polling rhythm, approves what is due), then the merchant opens the Payouts page and pays every
// balance it shows as payable, recorded through the page's own action over HTTP, with a session
// token as App Bridge sends it.

/** How long the approval sweep's count must stay the same to be done (the stack's worker polls every 500 ms). */
const SWEEP_QUIET_MS = 3_000;
const SWEEP_WAIT_MS = 60_000;

export interface HoldPassed {
  holdDays: number;
  /** Records the sweep approved once the hold had passed. */
  approved: number;
  /** Records past their hold still pending when the sweep went quiet: held by the app. */
  waitingDue: number;
}

/** Ages the shop's records past its hold, then waits until the worker's approval sweep has done its part. */
export async function holdPasses(shop: ArenaShop): Promise<HoldPassed> {
  const { db } = shop.records;
  const settings = await db.shopSettings.findUnique({ where: { shop: shop.shop }, select: { holdDays: true } });
  const holdDays = settings?.holdDays ?? DEFAULT_SETTINGS.holdDays;
  const approvedBefore = await db.commission.count({ where: { shop: shop.shop, status: "approved" } });
  // A minute past the hold: a record placed as the last journey ended is due, none is on its edge.
  await passTime(shop.records, holdDays * 24 * 60 + 1);
  // The sweep approves what is due unless the app holds it back (a suspected creator's records):
  // done when nothing due is pending, or when the count has stopped moving.
  const due = () =>
    db.commission.count({ where: { shop: shop.shop, status: "pending", holdUntil: { lte: new Date() } } });
  const deadline = Date.now() + SWEEP_WAIT_MS;
  let last = await due();
  let since = Date.now();
  while (last > 0 && Date.now() - since < SWEEP_QUIET_MS && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await due();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  const approvedAfter = await db.commission.count({ where: { shop: shop.shop, status: "approved" } });
  return { holdDays, approved: approvedAfter - approvedBefore, waitingDue: last };
}

interface PayoutsPage {
  balances: {
    key: string;
    creatorId: string;
    currency: string;
    balanceMinor: string;
    payable: boolean;
  }[];
  formToken: string;
  today: string;
}

export interface PayoutMade {
  payoutId: string;
  currency: string;
  /** The balances paid, as the page showed them (decimal amounts in the currency). */
  lines: { creatorId: string; amount: string }[];
  total: string;
}

/** The merchant pays every payable balance, one payout per currency (the app takes one currency a payout). */
export async function payEveryBalance(stack: Stack, shop: string): Promise<PayoutMade[]> {
  const made: PayoutMade[] = [];
  const first = await payoutsPage(stack, shop);
  const currencies = [...new Set(first.balances.filter((b) => b.payable).map((b) => b.currency))].sort();
  for (const currency of currencies) {
    // A fresh page for each payout: its form token is the payout's idempotency key.
    const page = await payoutsPage(stack, shop);
    const chosen = page.balances.filter((b) => b.payable && b.currency === currency);
    if (chosen.length === 0) continue;
    const form = new URLSearchParams({
      intent: "record",
      formToken: page.formToken,
      reference: `population run ${page.today}`,
      paidOn: page.today,
    });
    for (const balance of chosen) {
      form.append("balance", balance.key);
      form.append(`shown:${balance.key}`, balance.balanceMinor);
    }
    const answer = await admin(stack, shop, form);
    const result = (await answer.json().catch(() => null)) as {
      ok?: boolean;
      payoutId?: string;
      errors?: Record<string, string>;
    } | null;
    if (!answer.ok || !result?.ok || !result.payoutId)
      throw new Error(
        `the Payouts page refused the payout in ${currency}: HTTP ${answer.status} ${JSON.stringify(result?.errors ?? result)}`,
      );
    const totalMinor = chosen.reduce((sum, b) => sum + BigInt(b.balanceMinor), 0n);
    made.push({
      payoutId: result.payoutId,
      currency,
      lines: chosen.map((b) => ({ creatorId: b.creatorId, amount: minorToAmount(BigInt(b.balanceMinor), currency) })),
      total: minorToAmount(totalMinor, currency),
    });
  }
  return made;
}

async function payoutsPage(stack: Stack, shop: string): Promise<PayoutsPage> {
  const answer = await admin(stack, shop);
  if (!answer.ok) throw new Error(`the Payouts page answered HTTP ${answer.status}`);
  return (await answer.json()) as PayoutsPage;
}

/** A request to the app's Payouts route as the embedded admin sends it. */
function admin(stack: Stack, shop: string, form?: URLSearchParams): Promise<Response> {
  return embeddedRequest(stack.appUrl, "payouts", sessionToken({ ...stack, shop }), form);
}
