import { isShopifyMethod, type PayoutMethod } from "./methods";

// Who a scheduled run pays (decision 052), as a value: from the payable balances, the schedule's
// currency and minimum, and each creator's method. Creators paid by PayPal, store credit or gift
// card are sent through the run machinery, one run per method; creators paid by hand are listed
// for the merchant, never marked paid by a schedule; everyone else is left out with the reason.
// The preview on the Payouts page and the run itself are both this function, so what the
// merchant sees is what the run does with the same balances.

export const EXCLUSIONS = ["held", "otherCurrency", "underMinimum", "noMethod", "noEmail"] as const;
export type Exclusion = (typeof EXCLUSIONS)[number];

/** What the plan reads of a payable balance (payable-balances.server.ts). */
export interface BalanceIn {
  key: string;
  creatorId: string;
  currency: string;
  balanceMinor: string;
  /** Positive and not held. */
  payable: boolean;
  held: string | null;
}

export interface PlanLine {
  key: string;
  creatorId: string;
  currency: string;
  amountMinor: string;
  /** As the reader's money formatter writes it. */
  amount: string;
}

export type SentMethod = Exclude<PayoutMethod, "manual">;

export interface Plan {
  /** Sent by the app, each by the creator's method. */
  pay: (PlanLine & { method: SentMethod })[];
  /** Due, but the creator is paid by hand: listed, never marked paid by the schedule. */
  byHand: PlanLine[];
  excluded: (PlanLine & { reason: Exclusion })[];
}

export interface PlanRules {
  currency: string;
  minimumMinor: bigint;
  /** The creator's method (methods.ts): theirs or the shop's default. */
  methodOf: (creatorId: string) => string;
  /** Whether PayPal can be sent to: the shop's account is saved. */
  paypalReady: boolean;
  /** The shop's currency, which store credit and gift cards are paid in; null while unknown. */
  shopCurrency: string | null;
  /** Whether the creator has an email PayPal can pay. */
  hasEmail: (creatorId: string) => boolean;
}

function exclusion(balance: BalanceIn, rules: PlanRules): Exclusion | SentMethod | "manual" {
  if (balance.held) return "held";
  if (balance.currency !== rules.currency) return "otherCurrency";
  if (BigInt(balance.balanceMinor) < rules.minimumMinor) return "underMinimum";
  const method = rules.methodOf(balance.creatorId);
  if (method === "manual") return "manual";
  if (method === "paypal" ? !rules.paypalReady : !isShopifyMethod(method) || rules.shopCurrency === null)
    return "noMethod";
  // Store credit and gift cards are in the shop's currency: another is never converted.
  if (isShopifyMethod(method) && balance.currency !== rules.shopCurrency) return "otherCurrency";
  return rules.hasEmail(balance.creatorId) ? (method as SentMethod) : "noEmail";
}

/** The plan for these balances: only positive ones appear at all (nothing is owed to the rest). */
export function planRun(
  balances: BalanceIn[],
  rules: PlanRules,
  money: (minor: bigint | string, currency: string) => string,
): Plan {
  const plan: Plan = { pay: [], byHand: [], excluded: [] };
  for (const balance of balances) {
    if (BigInt(balance.balanceMinor) <= 0n || (!balance.payable && !balance.held)) continue;
    const line: PlanLine = {
      key: balance.key,
      creatorId: balance.creatorId,
      currency: balance.currency,
      amountMinor: balance.balanceMinor,
      amount: money(balance.balanceMinor, balance.currency),
    };
    const decided = exclusion(balance, rules);
    if (decided === "manual") plan.byHand.push(line);
    else if ((EXCLUSIONS as readonly string[]).includes(decided))
      plan.excluded.push({ ...line, reason: decided as Exclusion });
    else plan.pay.push({ ...line, method: decided as SentMethod });
  }
  return plan;
}
