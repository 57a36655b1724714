import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as dashboard from "../../app/routes/app._index";
import { sessionStorage } from "../../app/shopify.server";
import { EVIDENCE_METAFIELD } from "../../app/shopify-admin/documents";
import { SKIP_REASONS } from "../../app/verification/outcomes";
import { adminRequest, call } from "../admin/helpers";
import { deliver } from "../support/deliver";
import { rowCounts } from "../support/fixtures";
import {
  clearClickFaults,
  clickFault,
  LOOKUP,
  VERIFY,
  orderTags,
  placeOrder,
  useHarness,
  tagsAddCalls,
  verificationOf,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

// A shop's life around its orders, through the real webhooks and the worker: orders still
// queued when the app is uninstalled, the merchant reinstalling (opening the app again, which
// exchanges a session token for a new offline token), and a customer's data redacted while
// their order waits to be verified.

const suite = useHarness("life");
const { newShop, startWorker } = suite;
let h: Harness;
beforeAll(() => {
  h = suite.h;
});
afterEach(async () => {
  await clearClickFaults(h);
});

async function uninstall(shop: string, triggeredAt?: string) {
  const response = await deliver(h.app.url, "/webhooks/app/uninstalled", {
    topic: "app/uninstalled",
    shop,
    body: { id: 1, name: shop, domain: shop, myshopify_domain: shop },
    ...(triggeredAt && { triggeredAt }),
  });
  expect(response.status).toBe(200);
}

/** Shopify's side of an uninstall: the app's tokens for the shop stop working (the stand-in retires a shop's expiring tokens when it issues another). */
function revokeAtShopify(shop: string) {
  h.shopify.store.tokens.issue(shop, { expiring: true });
}

describe("uninstall and reinstall", () => {
  it("orders still queued at uninstall are skipped with the reason, and never reach the service", async () => {
    const shop = await newShop();
    // Recorded while the app was installed; no worker has run them yet.
    const orders = [await placeOrder(h, { shop }), await placeOrder(h, { shop, arrivedTag: "honey-77" })];
    await uninstall(shop);
    await startWorker().runOnce();

    for (const { payload, clickId } of orders) {
      const v = await verificationOf(shop, payload.id);
      expect(v).toMatchObject({ outcome: "skipped", reason: SKIP_REASONS.uninstalled, commission: null });
      expect(v.job).toMatchObject({ state: "done", attempts: 1 });
      expect(h.clicks.verifications(clickId)).toEqual([]);
      expect(orderTags(h, payload.id)).toEqual([]);
    }
  });

  it("turns the payout schedule off: no run is sent for a shop without the app", async () => {
    const { saveSchedule } = await import("../../app/payouts/schedule-settings.server");
    const { tickSchedule } = await import("../../app/payouts/schedule-run.server");
    const shop = await newShop();
    const form = { enabled: true, cadence: "weekly", weekday: "1", monthDay: "1", currency: "USD", minimum: "0" };
    expect(await saveSchedule(shop, form)).toEqual({ ok: true });
    expect(await tickSchedule(shop, new Date())).toMatchObject({ to: "wait" });
    await uninstall(shop);
    expect(await prisma.payoutSchedule.findUniqueOrThrow({ where: { shop } })).toMatchObject({ enabled: false });
    expect(await tickSchedule(shop, new Date(Date.now() + 8 * 86_400_000))).toEqual({ to: "off" });
  });

  it("a reinstall (the merchant opens the app again) resumes verification, with the new token and the old records", async () => {
    const shop = await newShop();
    const w = startWorker();
    const before = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    expect((await verificationOf(shop, before.payload.id)).outcome).toBe("hijacked");

    const installedToken = (await sessionStorage.loadSession(`offline_${shop}`))?.accessToken;
    await uninstall(shop);
    expect(await sessionStorage.loadSession(`offline_${shop}`)).toBeUndefined();
    const whileGone = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    expect((await verificationOf(shop, whileGone.payload.id)).reason).toBe(SKIP_REASONS.uninstalled);

    // Shopify opens the embedded app with a session token; the app exchanges it for an offline token.
    const opened = await call(dashboard.loader as never, adminRequest("/app", shop));
    expect(opened.status).toBe(200);
    const settings = await prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    expect(settings.uninstalledAt).toBeNull();
    // A token Shopify (the stand-in) issued for this shop in the exchange, not the one revoked by the uninstall.
    const session = await sessionStorage.loadSession(`offline_${shop}`);
    expect(session?.accessToken).not.toBe(installedToken);
    expect(h.shopify.store.tokens.valid(session!.accessToken!, shop)).toBeDefined();
    // The evidence metafield is defined for the shop again, as after any install.
    expect(h.shopify.store.shop(shop).definitions).toEqual([
      expect.objectContaining({ namespace: expect.any(String), key: EVIDENCE_METAFIELD.key }),
    ]);

    const after = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    const v = await verificationOf(shop, after.payload.id);
    expect(v.outcome).toBe("hijacked");
    expect(orderTags(h, after.payload.id)).toContain("affiliate-hijacked");
    expect(tagsAddCalls(h, after.payload.admin_graphql_api_id)).toBe(1);
    // What the shop had before the uninstall is all still there, and the skipped order stays skipped.
    expect((await verificationOf(shop, before.payload.id)).commission).toMatchObject({ redirected: true });
    expect((await verificationOf(shop, whileGone.payload.id)).outcome).toBe("skipped");
  });
  it("an uninstall delivered again after the merchant reinstalled changes nothing", async () => {
    const shop = await newShop();
    const w = startWorker();
    // Uninstalled ten minutes ago, but Shopify never saw the answer; the merchant reinstalls
    // (opens the app, which gets a new offline token); then Shopify delivers the uninstall again.
    const uninstalledAt = new Date(Date.now() - 10 * 60_000).toISOString();
    await uninstall(shop, uninstalledAt);
    const opened = await call(dashboard.loader as never, adminRequest("/app", shop));
    expect(opened.status).toBe(200);
    const token = (await sessionStorage.loadSession(`offline_${shop}`))?.accessToken;
    expect(token).toBeTruthy();
    await uninstall(shop, uninstalledAt);

    expect((await sessionStorage.loadSession(`offline_${shop}`))?.accessToken).toBe(token);
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt).toBeNull();
    const order = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    expect((await verificationOf(shop, order.payload.id)).outcome).toBe("hijacked");

    // An uninstall triggered after that install still uninstalls: Shopify revokes the app's token
    // and sends it, here with the same body as the one before (the shop record is unchanged).
    revokeAtShopify(shop);
    await uninstall(shop, new Date().toISOString());
    expect(await sessionStorage.loadSession(`offline_${shop}`)).toBeUndefined();
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt).not.toBeNull();
  });
});

// Issue 38, item 4: a captured app/uninstalled, correctly signed, replayed with any event id and
// X-Shopify-Triggered-At, neither of which the HMAC covers. The app judges it on its signed body
// and, for a body from before the last install, on Shopify's own word (shop-lifecycle.server.ts).
describe("replayed app/uninstalled", () => {
  /** The shop resource Shopify sends as app/uninstalled (its documented fields, abridged): the same bytes at every uninstall of a shop nobody has edited. */
  function shopPayload(shop: string) {
    return {
      id: 548380009,
      name: "Super Toys",
      email: "super@supertoys.com",
      domain: shop,
      myshopify_domain: shop,
      created_at: "2025-01-01T00:00:00-05:00",
      updated_at: "2026-01-15T10:00:00-05:00",
      plan_name: "basic",
      currency: "USD",
    };
  }

  function sendUninstall(shop: string, body: unknown, headers: { eventId?: string; triggeredAt?: Date } = {}) {
    return deliver(h.app.url, "/webhooks/app/uninstalled", { topic: "app/uninstalled", shop, body, ...headers });
  }

  /** The merchant opens the app again: its session token is exchanged for a new offline token. */
  async function reinstall(shop: string): Promise<string> {
    const opened = await call(dashboard.loader as never, adminRequest("/app", shop));
    expect(opened.status).toBe(200);
    return (await sessionStorage.loadSession(`offline_${shop}`))!.accessToken!;
  }

  async function installedAs(shop: string) {
    return {
      token: (await sessionStorage.loadSession(`offline_${shop}`))?.accessToken,
      uninstalledAt: (await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt,
    };
  }

  /** What the app holds for the shop, but for its memory of handled lifecycle webhooks. */
  async function shopRows(shop: string) {
    const { LifecycleEvent: _memory, ...counts } = await rowCounts(shop);
    return counts;
  }

  /** Installed, uninstalled with `body`, installed again: the body is one an attacker could have captured. */
  async function reinstalledAfter(body: (shop: string) => unknown) {
    const shop = await newShop();
    const captured = { eventId: `evt-${shop}`, triggeredAt: new Date(Date.now() - 30 * 60_000) };
    expect((await sendUninstall(shop, body(shop), captured)).status).toBe(200);
    expect(await sessionStorage.loadSession(`offline_${shop}`)).toBeUndefined();
    const token = await reinstall(shop);
    return { shop, captured, token };
  }

  it("after the merchant reinstalled, changes nothing with a fresh Triggered-At and any event id; nor does a shop/redact sent with it", async () => {
    const w = startWorker();
    const { shop, captured, token } = await reinstalledAfter(shopPayload);
    const before = await shopRows(shop);
    for (const eventId of [captured.eventId, "evt-replayed"]) {
      const replay = await sendUninstall(shop, shopPayload(shop), { eventId, triggeredAt: new Date() });
      expect(replay.status, eventId).toBe(200);
    }
    const redact = await deliver(h.app.url, "/webhooks/shop/redact", {
      topic: "shop/redact",
      shop,
      body: { shop_id: 548380009, shop_domain: shop },
    });
    expect(redact.status).toBe(200);

    expect(await shopRows(shop)).toEqual(before);
    expect(await installedAs(shop)).toEqual({ token, uninstalledAt: null });
    const order = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    await w.runOnce();
    expect((await verificationOf(shop, order.payload.id)).outcome).toBe("hijacked");
  });

  it("a new uninstall after a reinstall, with the same body as the one before, uninstalls: Shopify no longer honours the app's token", async () => {
    const { shop } = await reinstalledAfter(shopPayload);
    revokeAtShopify(shop);
    expect((await sendUninstall(shop, shopPayload(shop), { eventId: "evt-second-uninstall" })).status).toBe(200);
    const after = await installedAs(shop);
    expect(after.token).toBeUndefined();
    expect(after.uninstalledAt).toBeInstanceOf(Date);
  });

  it("when Shopify cannot be asked, is answered 503 and changes nothing; delivered again once it can, it is judged then", async () => {
    const { shop, token } = await reinstalledAfter(shopPayload);
    h.shopify.faults({ serverError: 1, status: 503 });
    const unanswered = await sendUninstall(shop, shopPayload(shop), { eventId: "evt-while-down" });
    expect(unanswered.status).toBe(503);
    expect(await installedAs(shop)).toEqual({ token, uninstalledAt: null });

    revokeAtShopify(shop);
    expect((await sendUninstall(shop, shopPayload(shop), { eventId: "evt-while-down" })).status).toBe(200);
    expect((await installedAs(shop)).token).toBeUndefined();
  });

  it("with the app's token expired, a body from before the reinstall changes nothing: an expired token proves nothing either way", async () => {
    const { shop, token } = await reinstalledAfter(shopPayload);
    await prisma.session.update({ where: { id: `offline_${shop}` }, data: { expires: new Date(Date.now() - 60_000) } });
    const before = h.shopify.requests().length;
    expect((await sendUninstall(shop, shopPayload(shop), { triggeredAt: new Date() })).status).toBe(200);
    expect(await installedAs(shop)).toEqual({ token, uninstalledAt: null });
    // Shopify was not asked with a token it would refuse whatever the installation.
    expect(h.shopify.requests().length).toBe(before);
  });

  it("a body the shop was never sent before, triggered after the reinstall, uninstalls without asking Shopify", async () => {
    const { shop } = await reinstalledAfter(shopPayload);
    const before = h.shopify.requests().length;
    const edited = { ...shopPayload(shop), updated_at: "2026-02-01T09:00:00-05:00" };
    expect((await sendUninstall(shop, edited, { eventId: "evt-edited" })).status).toBe(200);
    expect((await installedAs(shop)).token).toBeUndefined();
    expect(h.shopify.requests().length).toBe(before);
  });
});

describe("customers/redact", () => {
  it("on an order still queued: the order ends skipped at once, saying it was redacted", async () => {
    const shop = await newShop();
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    const response = await deliver(h.app.url, "/webhooks/customers/redact", {
      topic: "customers/redact",
      shop,
      body: { shop_id: 1, shop_domain: shop, customer: { id: 42 }, orders_to_redact: [payload.id] },
    });
    expect(response.status).toBe(200);
    await startWorker().runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "skipped", reason: SKIP_REASONS.redacted, clickId: null, commission: null });
    expect(v.job).toMatchObject({ state: "done", attempts: 1, lastError: null });
    expect(v.attemptLog).toEqual([]);
    expect(h.clicks.verifications(clickId)).toEqual([]);
    expect(orderTags(h, payload.id)).toEqual([]);
  });

  it("on an order waiting for a retry of its verdict: it ends skipped at the retry, and nothing more is sent", async () => {
    const shop = await newShop();
    const w = startWorker();
    // The report's answer is lost and the lookup fails: the order waits for a retry.
    await clickFault(h, { path: VERIFY, times: 1, status: 503 });
    await clickFault(h, { path: LOOKUP, times: 2, status: 503 });
    const { payload, clickId } = await placeOrder(h, { shop, arrivedTag: "honey-77" });
    // Frozen until the test moves it: a wake-up must not claim the retry before it is read.
    h.clock.now = new Date();
    await w.runOnce();
    const waiting = await verificationOf(shop, payload.id);
    expect(waiting.job).toMatchObject({ state: "queued", attempts: 1 });
    expect(waiting.clickId).toBe(clickId);
    const sent = h.clicks.state.requests.length;

    const response = await deliver(h.app.url, "/webhooks/customers/redact", {
      topic: "customers/redact",
      shop,
      body: { shop_id: 1, shop_domain: shop, customer: { id: 43 }, orders_to_redact: [payload.id] },
    });
    expect(response.status).toBe(200);
    h.clock.now = new Date(waiting.job.runAt.getTime() + 1);
    await w.runOnce();

    const v = await verificationOf(shop, payload.id);
    expect(v).toMatchObject({ outcome: "skipped", reason: SKIP_REASONS.redacted, clickId: null, commission: null });
    expect(v.job).toMatchObject({ state: "done", attempts: 2 });
    // No lookup with the redacted click, and no tag on the order.
    expect(h.clicks.state.requests.length).toBe(sent);
    expect(orderTags(h, payload.id)).toEqual([]);
  });
});
