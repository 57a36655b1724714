import { afterEach, beforeAll, describe, expect, it } from "vitest";
import prisma from "../../app/database/db.server";
import * as dashboard from "../../app/routes/app._index";
import { sessionStorage } from "../../app/shopify.server";
import { EVIDENCE_METAFIELD } from "../../app/shopify-admin/documents";
import { SKIP_REASONS } from "../../app/verification/outcomes";
import { adminRequest, call } from "../admin/helpers";
import { deliver } from "../support/deliver";
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

    // An uninstall triggered after that install still uninstalls.
    await uninstall(shop, new Date().toISOString());
    expect(await sessionStorage.loadSession(`offline_${shop}`)).toBeUndefined();
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).uninstalledAt).not.toBeNull();
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
