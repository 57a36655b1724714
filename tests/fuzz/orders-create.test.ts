import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { databaseClient } from "../../app/database/db.server";
import type { JobRunner } from "../../app/queue/runner.server";
import { deliver } from "../support/deliver";
import { orderPayload } from "../support/fixtures";
import { installShop, startHarness, worker, type Harness } from "../support/pipeline-harness";
import { amount, anyJson, hostileText, landingSite, time } from "./generators";

const prisma = databaseClient();

// Generated orders/create payloads, correctly signed, through the real webhook route over HTTP
// and then the real worker (the click sandbox and the Shopify stand-in behind it). Whatever the
// payload: never a 5xx; the delivery is recorded once, as an order or as invalid with a reason;
// a recorded order ends in an outcome without the worker throwing; nothing is half-written.

const SHOP = "fuzz-orders.myshopify.com";
/** Stands for the order's live click in generated text; replaced once the click exists. */
const LIVE = "{live-click}";
const FIELDS = [
  "id",
  "admin_graphql_api_id",
  "name",
  "created_at",
  "currency",
  "subtotal_price",
  "current_subtotal_price",
  "total_price",
  "total_line_items_price",
  "note_attributes",
  "landing_site",
  "cart_token",
] as const;

let h: Harness;
let w: JobRunner;
let events = 0;

beforeAll(async () => {
  h = await startHarness();
  await installShop(h, SHOP);
  w = worker(h);
});
afterAll(async () => {
  await w?.stop();
  await h?.close();
});

const clickId = fc.oneof(fc.constant(LIVE), fc.constant("clk_never_issued"), hostileText);

const noteAttributes = fc.oneof(
  fc.array(
    fc.record({
      name: fc.oneof(fc.constantFrom(...Object.values(CART_ATTRIBUTES)), fc.string()),
      value: fc.oneof(clickId, anyJson),
    }),
    { maxLength: 6 },
  ),
  anyJson,
);

const FIELD_VALUES: Record<(typeof FIELDS)[number], fc.Arbitrary<unknown>> = {
  id: fc.oneof(
    fc.integer({ min: -5, max: 5 }),
    fc.double(),
    fc.constantFrom("820982911946154508", "1e5", "-7"),
    anyJson,
  ),
  admin_graphql_api_id: fc.oneof(
    fc.constantFrom("gid://shopify/Order/820982911946154508", "gid://shopify/Order/x"),
    anyJson,
  ),
  name: fc.oneof(hostileText, anyJson),
  created_at: time,
  currency: fc.oneof(fc.constantFrom("USD", "JPY", "BHD", "usd", "XXXX", "€"), anyJson),
  subtotal_price: amount,
  current_subtotal_price: amount,
  total_price: amount,
  total_line_items_price: amount,
  note_attributes: noteAttributes,
  landing_site: landingSite(clickId),
  cart_token: fc.oneof(hostileText, anyJson),
};

/** A few fields at a time: one wrong field makes the order invalid, and valid odd orders must reach the worker too. */
const overrides = fc
  .uniqueArray(fc.constantFrom(...FIELDS), { maxLength: 3 })
  .chain((fields) => fc.tuple(...fields.map((field) => FIELD_VALUES[field].map((value) => [field, value] as const))))
  .map((entries) => Object.fromEntries(entries));

const order = fc.record({
  arrivedTag: fc.option(fc.oneof(fc.constantFrom("alice-20", "honey-77"), hostileText)),
  overrides,
  removed: fc.uniqueArray(fc.constantFrom(...FIELDS), { maxLength: 2 }),
  copies: fc.integer({ min: 1, max: 2 }),
});

/** Sends one body (all copies at once) and checks what the app made of it. */
async function deliverAndCheck(body: string, copies: number) {
  events += 1;
  const eventId = `fuzz-${events}`;
  const responses = await Promise.all(
    Array.from({ length: copies }, () =>
      deliver(h.app.url, "/webhooks/orders/create", { topic: "orders/create", shop: SHOP, body, eventId }),
    ),
  );
  const statuses = responses.map((response) => response.status);
  const texts = await Promise.all(responses.map((response) => response.text()));
  // Refused before anything is recorded, saying why: 413 larger than the app takes
  // (WEBHOOK_MAX_BODY_BYTES), 400 an empty body (the library's validator wants one).
  for (const [i, status] of statuses.entries()) {
    expect([200, 400, 413], `statuses ${statuses}`).toContain(status);
    if (status === 400) expect(texts[i]).toBe("empty body");
  }
  const deliveries = await prisma.webhookDelivery.findMany({ where: { shop: SHOP, topic: "orders/create", eventId } });
  if (statuses.every((status) => status !== 200)) {
    expect(deliveries).toEqual([]);
    return;
  }
  expect(deliveries).toHaveLength(1);
  const delivery = deliveries[0]!;
  expect(["recorded", "invalid", "duplicate-order"]).toContain(delivery.status);
  if (delivery.status === "invalid") expect(delivery.reason).toBeTruthy();
  if (delivery.status !== "recorded") return;

  await w.runOnce();
  const verification = await prisma.verification.findUniqueOrThrow({
    where: { shop_orderId: { shop: SHOP, orderId: delivery.orderId! } },
  });
  const job = await prisma.job.findUniqueOrThrow({
    where: { kind_subject: { kind: "verify-order", subject: verification.id } },
  });
  // A job that threw is back in the queue with its error: that is a crash, not an outcome.
  expect({ state: job.state, lastError: job.lastError }).toEqual({ state: "done", lastError: null });
  expect(verification.outcome).not.toBeNull();
  expect(verification.outcome).not.toBe("rejected");
}

describe("fuzzing orders/create", { timeout: 300_000 }, () => {
  it("records every generated order or refuses it with a reason, and the worker ends each one", async () => {
    await fc.assert(
      fc.asyncProperty(order, async ({ arrivedTag, overrides, removed, copies }) => {
        const payload: Record<string, unknown> = orderPayload({
          lineItems: [{ title: "Widget", price: "40.00" }],
          noteAttributes: {
            [CART_ATTRIBUTES.clickId]: LIVE,
            [CART_ATTRIBUTES.capturedAt]: new Date().toISOString(),
            ...(arrivedTag === null ? {} : { [CART_ATTRIBUTES.arrivedTag]: arrivedTag }),
          },
        });
        Object.assign(payload, overrides);
        for (const field of removed) delete payload[field];
        const click = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
        const body = JSON.stringify(payload)
          .replaceAll(LIVE, click.clickId)
          .replaceAll(encodeURIComponent(LIVE), click.clickId);
        await deliverAndCheck(body, copies);
      }),
      { numRuns: 120 },
    );
  });

  it("records a signed body that is not an order as invalid, whatever it is", async () => {
    const body = fc.oneof(
      anyJson.map((value) => JSON.stringify(value) ?? "null"),
      fc.constantFrom("", "{", '{"id": 1,}', "\u0000", '{"a":"\u0000"}', "\ud800", "[".repeat(10_000)),
      hostileText,
    );
    await fc.assert(
      fc.asyncProperty(body, fc.integer({ min: 1, max: 2 }), (text, copies) => deliverAndCheck(text, copies)),
      { numRuns: 60 },
    );
  });

  it("left nothing half-written: one order and one job per recorded delivery, none for the rest", async () => {
    // Whatever share of the generated orders was good enough to reach the worker (the first
    // property checks each one that did), none is left half-written.
    const recorded = await prisma.webhookDelivery.count({ where: { shop: SHOP, status: "recorded" } });
    expect(await prisma.verification.count({ where: { shop: SHOP } })).toBe(recorded);
    expect(await prisma.job.count({ where: { shop: SHOP, kind: "verify-order" } })).toBe(recorded);
    expect(await prisma.job.count({ where: { shop: SHOP, state: { not: "done" } } })).toBe(0);
  });
});
