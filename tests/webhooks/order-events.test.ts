import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { buildOrderCancelledPayload, buildRefundCreatePayload } from "../../sandbox/shopify";
import { servePublicRoutes } from "../support/app-routes";
import { deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import type { RouteServer } from "../support/route-server";

const prisma = databaseClient();

// refunds/create and orders/cancelled get what orders/create gets: the library's HMAC check,
// the topic and shop checks, one record per delivery and per refund or cancellation, a fast
// 200 for anything correctly signed (an unusable body is recorded, never a 5xx).

const SHOP = "order-events.myshopify.com";
const DOCUMENTED_REFUND = readFileSync(
  new URL("../fixtures/webhooks/refunds-create-2026-07.json", import.meta.url),
  "utf8",
);
let app: RouteServer;

beforeAll(async () => {
  app = await servePublicRoutes();
});
afterAll(() => app.close());

const refundDelivery = (body: unknown, eventId?: string) =>
  deliver(app.url, "/webhooks/refunds/create", { topic: "refunds/create", shop: SHOP, body, eventId });

describe("refunds/create", () => {
  it("records Shopify's documented sample with only the amounts the ledger needs", async () => {
    const response = await refundDelivery(DOCUMENTED_REFUND, "evt-documented-refund");
    expect(response.status).toBe(200);
    const event = await prisma.orderEvent.findUniqueOrThrow({
      where: { shop_kind_sourceId: { shop: SHOP, kind: "refund", sourceId: "890088186047892319" } },
    });
    // The sample's order_id was already rounded when it was written down: the body says ...500.
    expect(event.orderId).toBe("820982911946154500");
    expect(JSON.parse(event.facts)).toEqual({
      kind: "refund",
      orderId: "820982911946154500",
      refundId: "890088186047892319",
      currency: "USD",
      refunded: expect.objectContaining({ subtotal_after_discounts: expect.stringMatching(/^\d+(\.\d+)?$/) }),
    });
    expect(event.facts).not.toContain("Things were damaged");
  });

  it("reads an order id beyond 2^53 exactly from the body's digits", async () => {
    const exact = DOCUMENTED_REFUND.replaceAll("820982911946154500", "820982911946154508").replace(
      "gid://shopify/Refund/890088186047892319",
      "gid://shopify/Refund/890088186047892320",
    );
    expect((await refundDelivery(exact, "evt-exact-refund")).status).toBe(200);
    const event = await prisma.orderEvent.findUniqueOrThrow({
      where: { shop_kind_sourceId: { shop: SHOP, kind: "refund", sourceId: "890088186047892320" } },
    });
    expect(event.orderId).toBe("820982911946154508");
  });

  it("totals the refunded lines per basis from the exact shop-money strings", async () => {
    const refund = buildRefundCreatePayload({
      orderId: 6_400_000_000_001,
      lines: [
        { price: "19.99", quantity: 3, subtotal: "50.00", tax: "4.10" },
        { price: "0.10", subtotal: "0.10" },
      ],
      shipping: "6.95",
    });
    expect((await refundDelivery(refund)).status).toBe(200);
    const event = await prisma.orderEvent.findFirstOrThrow({ where: { shop: SHOP, orderId: "6400000000001" } });
    expect(JSON.parse(event.facts).refunded).toEqual({
      subtotal_after_discounts: "50.1",
      subtotal_before_discounts: "60.07",
      total_price: "61.15",
    });
  });

  it("records a correctly signed body that is not a refund as invalid, with a 200", async () => {
    for (const [body, reason] of [
      [{ id: 1 }, /order_id/],
      ["not json {", /body is not JSON/],
      [{ id: 2, order_id: 3, refund_line_items: [{ subtotal_set: { shop_money: { amount: "1e9" } } }] }, /decimal/],
    ] as const) {
      const eventId = `evt-invalid-${String(reason)}`;
      expect((await refundDelivery(body, eventId)).status).toBe(200);
      const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop: SHOP, eventId } });
      expect(delivery.status).toBe("invalid");
      expect(delivery.reason).toMatch(reason);
    }
  });

  it("records a signed refund whose amounts are negative or absurd as invalid, with a 200, and keeps no event", async () => {
    const line = (amount: string, extra: Record<string, unknown> = {}) => ({
      quantity: 1,
      subtotal_set: { shop_money: { amount, currency_code: "USD" } },
      ...extra,
    });
    const cases: [string, unknown, RegExp][] = [
      ["negative", { id: 11, order_id: 21, refund_line_items: [line("-50.00")] }, /subtotal_set.*at least 0/],
      ["negative bare", { id: 12, order_id: 22, refund_line_items: [{ subtotal: -5 }] }, /subtotal.*at least 0/],
      [
        "negative tax",
        {
          id: 13,
          order_id: 23,
          refund_line_items: [line("5.00", { total_tax_set: { shop_money: { amount: "-1" } } })],
        },
        /total_tax_set.*at least 0/,
      ],
      [
        "negative shipping",
        {
          id: 14,
          order_id: 24,
          refund_shipping_lines: [{ subtotal_amount_set: { shop_money: { amount: "-6.95", currency_code: "USD" } } }],
        },
        /subtotal_amount_set.*at least 0/,
      ],
      ["beyond an order", { id: 15, order_id: 25, refund_line_items: [line("1000000000000.01")] }, /at most/],
      [
        "lines adding up beyond an order",
        { id: 16, order_id: 26, refund_line_items: [line("999999999999"), line("999999999999")] },
        /add up to more than/,
      ],
      [
        "a quantity no order holds",
        { id: 17, order_id: 27, refund_line_items: [line("1.00", { quantity: 1e12, line_item: { price: "1.00" } })] },
        /quantity/,
      ],
    ];
    for (const [what, body, reason] of cases) {
      const eventId = `evt-bounded-${what}`;
      expect((await refundDelivery(body, eventId)).status, what).toBe(200);
      const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop: SHOP, eventId } });
      expect(delivery.status, what).toBe("invalid");
      expect(delivery.reason, what).toMatch(reason);
    }
    expect(
      await prisma.orderEvent.count({
        where: { shop: SHOP, sourceId: { in: ["11", "12", "13", "14", "15", "16", "17"] } },
      }),
    ).toBe(0);
  });

  it("records a signed refund whose currency is not a currency code (control characters, a lone surrogate) as invalid", async () => {
    for (const [n, code] of [
      [31, "U\u0000D"],
      [32, "\ud800SD"],
      [33, "usd"],
      [34, "USD\n"],
    ] as const) {
      const body = {
        id: n,
        order_id: n + 100,
        refund_line_items: [{ subtotal_set: { shop_money: { amount: "1.00", currency_code: code } } }],
      };
      const eventId = `evt-currency-${n}`;
      expect((await refundDelivery(body, eventId)).status).toBe(200);
      const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop: SHOP, eventId } });
      expect(delivery).toMatchObject({ status: "invalid", reason: expect.stringMatching(/ISO 4217/) });
    }
  });

  it("refuses a forged signature and a body replayed under another topic", async () => {
    const refund = buildRefundCreatePayload({ orderId: 6_400_000_000_002, lines: [{ price: "1.00" }] });
    const forged = await deliver(app.url, "/webhooks/refunds/create", {
      topic: "refunds/create",
      shop: SHOP,
      body: refund,
      secret: "not-the-app-secret",
    });
    expect(forged.status).toBe(401);
    const replayed = await deliver(app.url, "/webhooks/refunds/create", {
      topic: "orders/create",
      shop: SHOP,
      body: refund,
    });
    expect(replayed.status).toBe(400);
    expect(await prisma.orderEvent.count({ where: { shop: SHOP, orderId: "6400000000002" } })).toBe(0);
  });
});

describe("orders/cancelled", () => {
  it("records one cancellation per order however often it is delivered", async () => {
    const order = orderPayload();
    const cancelled = buildOrderCancelledPayload(order);
    const statuses = await Promise.all(
      [1, 1, 2].map(
        async (n) =>
          (
            await deliver(app.url, "/webhooks/orders/cancelled", {
              topic: "orders/cancelled",
              shop: SHOP,
              body: cancelled,
              eventId: `evt-cancel-${n}`,
            })
          ).status,
      ),
    );
    expect(statuses).toEqual([200, 200, 200]);
    expect(await prisma.orderEvent.findMany({ where: { shop: SHOP, orderId: String(order.id) } })).toMatchObject([
      { kind: "cancel", sourceId: String(order.id), appliedAt: null },
    ]);
    const deliveries = await prisma.webhookDelivery.findMany({ where: { shop: SHOP, topic: "orders/cancelled" } });
    expect(deliveries.map((d) => d.status).sort()).toEqual(["duplicate-event", "recorded"]);
  });
});

describe("orders/edited", () => {
  const DOCUMENTED_EDIT = readFileSync(
    new URL("../fixtures/webhooks/orders-edited-2026-07.json", import.meta.url),
    "utf8",
  );
  const editDelivery = (body: unknown, eventId?: string) =>
    deliver(app.url, "/webhooks/orders/edited", { topic: "orders/edited", shop: SHOP, body, eventId });

  it("records Shopify's documented sample once, by its edit id, with no amount (they are read when applied)", async () => {
    expect((await editDelivery(DOCUMENTED_EDIT, "evt-documented-edit")).status).toBe(200);
    expect((await editDelivery(DOCUMENTED_EDIT, "evt-documented-edit-again")).status).toBe(200);
    const events = await prisma.orderEvent.findMany({ where: { shop: SHOP, kind: "edit" } });
    // Both ids were rounded when the sample was written down; the body's digits are what it says.
    expect(events.map((e) => [e.orderId, e.sourceId])).toEqual([["820982911946154500", "78912328793123780"]]);
    expect(JSON.parse(events[0]!.facts)).toEqual({
      kind: "edit",
      orderId: "820982911946154500",
      editId: "78912328793123780",
      committedAt: "2021-12-31T19:00:00-05:00",
    });
    const deliveries = await prisma.webhookDelivery.findMany({ where: { shop: SHOP, topic: "orders/edited" } });
    expect(deliveries.map((d) => d.status).sort()).toEqual(["duplicate-event", "recorded"]);
  });

  it("records a payload that is not an order edit as invalid, saying which field", async () => {
    expect((await editDelivery({ order_edit: { id: 5 } }, "evt-bad-edit")).status).toBe(200);
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { shop: SHOP, eventId: "evt-bad-edit" } });
    expect(delivery).toMatchObject({ status: "invalid", reason: expect.stringContaining("order_edit.order_id") });
  });
});
