import { creatorNames } from "./creator-profiles.server";
import {
  listPayouts,
  payableBalances,
  recordPayout,
  voidPayout,
  type RecordPayoutResult,
  type VoidPayoutResult,
} from "./payouts.server";

// The Payouts page's server side: what it shows, and its two actions (record, void) read from
// the submitted form, so the route only authenticates and answers.

export async function payoutsPage(shop: string, now: Date = new Date()) {
  const [balances, payouts] = await Promise.all([payableBalances(shop), listPayouts(shop)]);
  return {
    balances,
    payouts,
    names: await creatorNames(
      shop,
      balances.map((b) => b.creatorId),
    ),
    formToken: crypto.randomUUID(),
    today: now.toISOString().slice(0, 10),
  };
}

export type PayoutsActionResult = ({ intent: "record" } & RecordPayoutResult) | ({ intent: "void" } & VoidPayoutResult);

export async function payoutsAction(
  shop: string,
  form: FormData,
  staffId: string | null,
): Promise<PayoutsActionResult> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : "";
  };
  if (text("intent") === "void")
    return {
      intent: "void",
      ...(await voidPayout(shop, { payoutId: text("payoutId"), reason: text("reason") }, staffId)),
    };
  const result = await recordPayout(shop, {
    idempotencyKey: text("formToken"),
    reference: text("reference"),
    paidOn: text("paidOn"),
    balances: form
      .getAll("balance")
      .filter((key): key is string => typeof key === "string")
      .map((key) => ({ key, shownMinor: text(`shown:${key}`) })),
  });
  return { intent: "record", ...result };
}
