import { creatorNames } from "./creator-profiles.server";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { DEFAULT_LOCALE, localeMoney, shopToday, timesIn, UTC, type ShopFormat } from "../units/shop-format";
import { payableBalances } from "./payable-balances.server";
import type { ChosenBalance } from "./payout-forms";
import { listPayouts, readablePayouts } from "./payout-history.server";
import { recordPayout, voidPayout, type RecordPayoutResult, type VoidPayoutResult } from "./payouts.server";

// The Payouts page's server side: what it shows, and its two actions (record, void) read from
// the submitted form, so the route only authenticates and answers.

export async function payoutsPage(
  shop: string,
  now: Date = new Date(),
  format: ShopFormat = { locale: DEFAULT_LOCALE, timeZone: UTC },
) {
  const money = localeMoney(format.locale);
  const [balances, listed] = await Promise.all([payableBalances(shop, money, now), listPayouts(shop, 50, money)]);
  const payouts = readablePayouts(listed, format.locale);
  return {
    balances,
    payouts,
    times: timesIn(
      [...payouts.map((payout) => payout.voided?.at ?? null), ...balances.map((b) => b.waiting?.from ?? null)],
      format,
    ),
    /** The merchant's locale: the page sums what is chosen in the browser and writes it so. */
    locale: format.locale,
    names: await creatorNames(
      shop,
      balances.map((b) => b.creatorId),
    ),
    formToken: crypto.randomUUID(),
    // The shop's day: in Tokyo at 08:00 the payment was made today, not on UTC's yesterday.
    today: shopToday(format.timeZone, now),
  };
}

/** The Payouts page for a merchant: the shop's zone and day, amounts in their locale. */
export async function payoutsPageFor(shop: string, locale: string) {
  return payoutsPage(shop, new Date(), await shopFormat(shop, locale));
}

/** The balances a payout form chose, each with the amount the page showed beside it. */
export function chosenInForm(form: FormData): ChosenBalance[] {
  const shown = form.get.bind(form);
  return form
    .getAll("balance")
    .filter((key): key is string => typeof key === "string")
    .map((key) => {
      const value = shown(`shown:${key}`);
      return { key, shownMinor: typeof value === "string" ? value : "" };
    });
}

export type PayoutsActionResult = ({ intent: "record" } & RecordPayoutResult) | ({ intent: "void" } & VoidPayoutResult);

export async function payoutsAction(
  shop: string,
  form: FormData,
  staffId: string | null,
  locale: string = DEFAULT_LOCALE,
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
  const result = await recordPayout(
    shop,
    {
      idempotencyKey: text("formToken"),
      reference: text("reference"),
      paidOn: text("paidOn"),
      balances: chosenInForm(form),
    },
    new Date(),
    localeMoney(locale),
  );
  return { intent: "record", ...result };
}
