import Decimal from "decimal.js";
import { beforeAll, describe, expect, it } from "vitest";
import { landingSiteClickId } from "../../app/attribution/click-claims";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { readRefund } from "../../app/commissions/order-events";
import { orderPayloadFrom, refundPayloadFrom } from "../../app/reconciliation/shopify-readings";
import { requestAdmin } from "../../app/shopify-admin/admin-client.server";
import { RECONCILE_ORDER, RECONCILE_REFUND } from "../../app/shopify-admin/documents";
import { offlineAdmin } from "../../app/shopify.server";
import { readOrderFacts, type OrderFacts } from "../../app/verification/order-facts";
import { buildRefundCreatePayload } from "../../sandbox/shopify";
import { orderPayload } from "../support/fixtures";
import { useHarness, type Harness } from "../support/pipeline-harness";

// Webhook and sweep must read one order alike: the same stand-in order, once as orders/create
// delivers it and once through the Admin API documents the sweep sends (through the library's
// client, validated against the app's Admin schema by the stand-in), each put through the app's one
// reader, compared field by field. Amounts are compared as decimals: the API prints "25.0" where
// the webhook says "25.00".

const suite = useHarness("readings");
let h: Harness;
beforeAll(() => {
  h = suite.h;
});

async function admin(shop: string) {
  const access = await offlineAdmin(shop);
  if (!access.ok) throw new Error(access.message);
  return access.graphql;
}

async function sweepReading(shop: string, gid: string): Promise<OrderFacts> {
  const read = await requestAdmin(await admin(shop), RECONCILE_ORDER, { id: gid, linesAfter: null });
  if (!read.ok || !read.data.order) throw new Error(read.ok ? "no order" : read.message);
  const order = read.data.order;
  expect(order.lineItems.pageInfo.hasNextPage).toBe(false);
  const facts = readOrderFacts(
    orderPayloadFrom(
      order,
      order.lineItems.nodes.map((line) => String(line.originalTotalSet.shopMoney.amount)),
    ),
  );
  if (!facts.ok) throw new Error(facts.reason);
  return facts.facts;
}

const exact = (amounts: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(amounts).map(([basis, amount]) => [basis, new Decimal(amount!).toFixed(6)]));
const onShop = (shop: string, landing: string | null) => (landing ? new URL(landing, `https://${shop}`).href : null);

describe("the sweep's reading of an order", () => {
  it("gives the webhook's order value, currency, click id, tag, landing page and cart token", async () => {
    const shop = await suite.newShop();
    const payload = orderPayload({
      currency: "EUR",
      lineItems: [
        { title: "Widget", price: "19.99", quantity: 3 },
        { title: "Gadget", price: "120.00", quantity: 1 },
      ],
      discount: "15.00",
      discountCode: "SPRING15",
      tax: "12.34",
      shipping: "4.95",
      noteAttributes: {
        [CART_ATTRIBUTES.clickId]: "clk_readings_1",
        [CART_ATTRIBUTES.arrivedTag]: "honey-77",
        [CART_ATTRIBUTES.capturedAt]: "2026-11-27T01:00:00.000Z",
        unrelated_note: "not ours",
      },
      landingSite: "/products/widget?lb_click=clk_readings_1&tag=alice-20",
    });
    payload.cart_token = "cart-readings-1";
    h.shopify.createOrder(shop, payload);

    const webhook = readOrderFacts(JSON.parse(JSON.stringify(payload)));
    if (!webhook.ok) throw new Error(webhook.reason);
    const sweep = await sweepReading(shop, String(payload.admin_graphql_api_id));

    expect(sweep.id).toBe(webhook.facts.id);
    expect(sweep.gid).toBe(webhook.facts.gid);
    expect(sweep.name).toBe(webhook.facts.name);
    expect(sweep.createdAt).toBe(webhook.facts.createdAt);
    expect(sweep.currency).toBe("EUR");
    expect(sweep.currency).toBe(webhook.facts.currency);
    expect(Object.keys(webhook.facts.amounts).sort()).toEqual([
      "subtotal_after_discounts",
      "subtotal_before_discounts",
      "total_price",
    ]);
    expect(exact(sweep.amounts)).toEqual(exact(webhook.facts.amounts));
    expect(sweep.cartAttributes).toEqual(webhook.facts.cartAttributes);
    expect(sweep.cartAttributes.map((a) => a.name)).not.toContain("unrelated_note");
    expect(onShop(shop, sweep.landingSite)).toBe(onShop(shop, webhook.facts.landingSite));
    expect(landingSiteClickId(sweep.landingSite)).toBe("clk_readings_1");
    expect(landingSiteClickId(sweep.landingSite)).toBe(landingSiteClickId(webhook.facts.landingSite));
    expect(new URL(sweep.landingSite!).searchParams.get("tag")).toBe("alice-20");
    expect(sweep.cartToken).toBe("cart-readings-1");
    expect(sweep.cartToken).toBe(webhook.facts.cartToken);
    expect(sweep.discountCodes.map((c) => [c.code, new Decimal(c.amount).toFixed(2), c.type])).toEqual(
      webhook.facts.discountCodes.map((c) => [c.code, new Decimal(c.amount).toFixed(2), c.type]),
    );
  });

  it("gives the webhook's refunded amounts for a refund, on every order-value basis", async () => {
    const shop = await suite.newShop();
    const payload = orderPayload({ lineItems: [{ title: "Widget", price: "40.00", quantity: 2 }], shipping: "5.00" });
    h.shopify.createOrder(shop, payload);
    const refund = buildRefundCreatePayload({
      orderId: payload.id,
      lines: [{ price: "40.00", quantity: 1, subtotal: "36.00", tax: "2.88" }],
      shipping: "5.00",
    });
    h.shopify.store.addRefund(shop, refund);

    const read = await requestAdmin(await admin(shop), RECONCILE_REFUND, {
      id: String(refund.admin_graphql_api_id),
      linesAfter: null,
    });
    if (!read.ok || !read.data.refund) throw new Error(read.ok ? "no refund" : read.message);
    const fromSweep = readRefund(refundPayloadFrom(read.data.refund, read.data.refund.refundLineItems.nodes), "{}");
    const fromWebhook = readRefund(refund, JSON.stringify(refund));
    if (!fromSweep.ok || !fromWebhook.ok) throw new Error("a reading was refused");
    if (fromSweep.facts.kind !== "refund" || fromWebhook.facts.kind !== "refund") throw new Error("not refunds");
    expect({ ...fromSweep.facts, refunded: exact(fromSweep.facts.refunded) }).toEqual({
      ...fromWebhook.facts,
      refunded: exact(fromWebhook.facts.refunded),
    });
    expect(exact(fromSweep.facts.refunded)).toEqual(
      exact({ subtotal_after_discounts: "36", subtotal_before_discounts: "40", total_price: "43.88" }),
    );
  });
});
