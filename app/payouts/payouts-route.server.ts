import { payoutsAction, payoutsPageFor } from "../commissions/payouts-page.server";
import { resolveChecked, waitingPayoutIds } from "./checked.server";
import { PAYPAL_INTENTS, paypalAction, paypalPart } from "./payouts-page.server";
import type { PayoutsRouteAnswer } from "./page-answers";
import { SCHEDULE_INTENTS } from "./page-answers";
import { scheduleAction, schedulePart } from "./schedule-page.server";

// What the Payouts route loads and answers, put together here so the route only authenticates:
// the ledger's balances and history (app/commissions), the methods and PayPal account, the
// schedule, and which sent payouts wait for the merchant's word (checked.server.ts); each submit goes to the part its intent names.

export async function payoutsRouteData(shop: string, locale: string) {
  const [page, paypal, schedule] = await Promise.all([
    payoutsPageFor(shop, locale),
    paypalPart(shop),
    schedulePart(shop, locale),
  ]);
  const currencies = [...new Set(page.balances.map((b) => b.currency))];
  const waiting = await waitingPayoutIds(
    shop,
    page.payouts.filter((p) => p.provider && !p.voided && !p.provider.settled).map((p) => p.id),
  );
  return { ...page, ...paypal, schedule: { ...schedule, currencies }, waiting };
}

export async function payoutsRouteAction(
  shop: string,
  form: FormData,
  staffId: string | null,
  locale: string,
): Promise<PayoutsRouteAnswer> {
  const intent = form.get("intent");
  if ((PAYPAL_INTENTS as readonly unknown[]).includes(intent)) return paypalAction(shop, form, locale);
  if ((SCHEDULE_INTENTS as readonly unknown[]).includes(intent)) return scheduleAction(shop, form);
  if (intent === "checked")
    return resolveChecked(
      shop,
      { payoutId: form.get("payoutId"), found: form.get("found"), providerId: form.get("providerId") ?? undefined },
      staffId,
    );
  return payoutsAction(shop, form, staffId, locale);
}
