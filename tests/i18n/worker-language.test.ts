import { afterAll, describe, expect, it } from "vitest";
import { startPaypalStandin } from "../../sandbox/paypal/server";
import { startShopifyStandin } from "../../sandbox/shopify/server";
import { addCustomer, payoutState } from "../../sandbox/shopify/payouts";
import de from "../../app/i18n/locales/de.json";
import en from "../../app/i18n/locales/en.json";
import fr from "../../app/i18n/locales/fr.json";
import { standinAdmin } from "../support/standin-admin";

// What the worker writes outside any request is in the language the shop's admin was last opened
// in (decision 055): an admin request that carries Shopify admin's `locale` keeps it with the
// shop, and the payout jobs then write the PayPal batch's email subject and each item's note,
// the gift card's note and message, and the reasons a run records, in that language. Through
// the worker's own payout handlers, against the PayPal and Shopify stand-ins over HTTP.

const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const shopify = await startShopifyStandin();
const { batchesFor, creator, payoutRunner, record } = await import("../support/paypal-runs");
const { databaseClient } = await import("../../app/database/db.server");
const { payableBalances } = await import("../../app/commissions/payable-balances.server");
const { savePaypalAccount, saveMethod } = await import("../../app/payouts/payout-settings.server");
const { startPaypalRun, startSentRun } = await import("../../app/payouts/run-intent.server");
const { forgetKeptAdminLocales, rememberingAdminLocale, shopAdminLocale } =
  await import("../../app/i18n/shop-language.server");

const prisma = databaseClient();
const runner = await payoutRunner({
  shopifyAdmin: standinAdmin(
    () => shopify,
    () => ["read_customers", "write_customers", "read_gift_cards", "write_gift_cards"],
  ),
});

afterAll(async () => {
  await runner.stop();
  await shopify.close();
  await paypal.close();
});

/** The app's authenticate.admin as the admin's routes call it, the library's part stood in for. */
const authenticate = rememberingAdminLocale(async (request: Request) => ({
  session: { shop: new URL(request.url).searchParams.get("shop") ?? "" },
}));
const openAdmin = (shop: string, query = "") =>
  authenticate(new Request(`https://app.test/app?embedded=1&shop=${shop}${query}`));

let shops = 0;
async function paypalShop(locale: string | null) {
  const shop = `worker-language-${++shops}.myshopify.com`;
  if (locale) await openAdmin(shop, `&locale=${locale}`);
  const client = paypal.addClient();
  const account = { environment: "sandbox", clientId: client.clientId, secret: client.secret, webhookId: "" };
  expect(await savePaypalAccount(shop, account)).toMatchObject({ ok: true });
  expect(await saveMethod(shop, { creatorId: "", method: "paypal" })).toMatchObject({ ok: true });
  await creator(shop, "cr_ana", "ana@creators.test");
  await record(shop, "cr_ana", "EUR", 1250n);
  return { shop, account };
}

const chosen = async (shop: string) =>
  (await payableBalances(shop)).filter((b) => b.payable).map((b) => ({ key: b.key, shownMinor: b.balanceMinor }));
let forms = 0;
const runOf = (shop: string) => prisma.payoutRun.findFirstOrThrow({ where: { shop } });

describe("the admin's language kept with the shop", () => {
  it("is the tag of the last admin request that carried one", async () => {
    const shop = "worker-language-kept.myshopify.com";
    expect(await shopAdminLocale(shop)).toBeNull();
    await openAdmin(shop, "&locale=de");
    expect(await shopAdminLocale(shop)).toBe("de");
    // A request without Shopify admin's locale (a redirect, an exit from the iframe) says nothing.
    await openAdmin(shop);
    expect(await shopAdminLocale(shop)).toBe("de");
    await openAdmin(shop, "&locale=pt-BR");
    expect(await shopAdminLocale(shop)).toBe("pt-BR");
    // Another process (or this one restarted) writes what it sees, not what it kept.
    forgetKeptAdminLocales();
    await openAdmin(shop, "&locale=fr");
    expect(await shopAdminLocale(shop)).toBe("fr");
  });
});

describe("a payout job writes in the shop's admin language", () => {
  it("sends PayPal the batch's subject and each item's note in German for a German admin", async () => {
    const { shop } = await paypalShop("de");
    expect(
      await startPaypalRun(shop, { idempotencyKey: `worker-language-form-${++forms}`, balances: await chosen(shop) }),
    ).toMatchObject({ ok: true });
    await runner.work();
    const [batch] = batchesFor(paypal, (await runOf(shop)).senderBatchId);
    expect(batch!.emailSubject).toBe(de.payouts.run.subject);
    expect(batch!.items.map((item) => item.note)).toEqual([de.payouts.run.itemNote.replace("{shop}", shop)]);
  });

  it("writes English for a shop whose admin language is not known yet", async () => {
    const { shop } = await paypalShop(null);
    expect(
      await startPaypalRun(shop, { idempotencyKey: `worker-language-form-${++forms}`, balances: await chosen(shop) }),
    ).toMatchObject({ ok: true });
    await runner.work();
    const [batch] = batchesFor(paypal, (await runOf(shop)).senderBatchId);
    expect(batch!.emailSubject).toBe(en.payouts.run.subject);
    expect(batch!.items.map((item) => item.note)).toEqual([en.payouts.run.itemNote.replace("{shop}", shop)]);
  });

  it("records the reason a run stopped in the admin's language, which the merchant reads on Payouts", async () => {
    const { shop, account } = await paypalShop("de-AT");
    expect(
      await startPaypalRun(shop, { idempotencyKey: `worker-language-form-${++forms}`, balances: await chosen(shop) }),
    ).toMatchObject({ ok: true });
    // The merchant switches the PayPal account to live before the worker sends: the run refuses.
    expect(await savePaypalAccount(shop, { ...account, environment: "live" })).toMatchObject({ ok: true });
    await runner.work();
    expect(await runOf(shop)).toMatchObject({ state: "refused", lastError: de.payouts.run.environmentChanged });
  });

  it("writes a gift card's note and message in French for a French admin", async () => {
    const shop = `worker-language-${++shops}.myshopify.com`;
    await openAdmin(shop, "&locale=fr-CA");
    await prisma.shopProfile.create({ data: { shop, ianaTimezone: "UTC", currencyCode: "EUR", readAt: new Date() } });
    expect(await saveMethod(shop, { creatorId: "", method: "gift_card", createCustomers: "off" })).toEqual({
      ok: true,
    });
    addCustomer(shopify.store.shop(shop), "ana@creators.test");
    await creator(shop, "cr_ana", "ana@creators.test");
    await record(shop, "cr_ana", "EUR", 1250n);
    expect(
      await startSentRun(shop, "gift_card", {
        idempotencyKey: `worker-language-form-${++forms}`,
        balances: await chosen(shop),
      }),
    ).toMatchObject({ ok: true });
    await runner.work();
    const payout = await prisma.payout.findFirstOrThrow({ where: { shop } });
    expect(payoutState(shopify.store.shop(shop)).giftCards).toMatchObject([
      {
        note: fr.payouts.shopify.giftCardNote.replace("{payoutId}", payout.id),
        message: fr.payouts.shopify.giftCardMessage.replace("{shop}", shop),
      },
    ]);
  });
});
