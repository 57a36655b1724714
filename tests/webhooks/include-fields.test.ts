import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import type { JobRunner } from "../../app/queue/runner.server";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { deliver } from "../support/deliver";
import { DOCUMENTED_ORDERS_CREATE_2026_07 } from "../support/fixtures";
import { installShop, startHarness, verificationOf, worker, type Harness } from "../support/pipeline-harness";

const prisma = databaseClient();

// shopify.app.toml asks Shopify for only some fields of orders/create (include_fields). An order
// cut down to exactly those fields must still be verified end to end: a field the app reads but
// the subscription forgot would fail here.

function includedFields(topic: string): string[] {
  const toml = readFileSync("shopify.app.toml", "utf8");
  const block = toml.split("[[webhooks.subscriptions]]").find((part) => part.includes(`topics = ["${topic}"]`));
  const list = block && /include_fields\s*=\s*\[([^\]]*)\]/.exec(block)?.[1];
  if (!list) throw new Error(`no include_fields for ${topic} in shopify.app.toml`);
  return [...list.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

let h: Harness;
let w: JobRunner;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await w?.stop();
  await h.close();
});

it("an orders/create delivery with only the subscribed fields is verified and credited", async () => {
  const fields = includedFields("orders/create");
  expect(fields).not.toContain("customer");
  expect(fields).not.toContain("email");
  const shop = "include-fields.myshopify.com";
  await installShop(h, shop);
  const click = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
  const full = JSON.parse(DOCUMENTED_ORDERS_CREATE_2026_07) as Record<string, unknown>;
  full.created_at = new Date().toISOString();
  full.note_attributes = [
    { name: CART_ATTRIBUTES.clickId, value: click.clickId },
    { name: CART_ATTRIBUTES.arrivedTag, value: "honey-77" },
  ];
  // The sample's 10.00 of discounts (414.95 of lines, 404.95 after), as one code.
  full.discount_codes = [{ code: "SAVE10", amount: "10.00", type: "fixed_amount" }];
  const cut = Object.fromEntries(fields.filter((field) => field in full).map((field) => [field, full[field]]));
  expect(Object.keys(cut).sort()).toEqual([...fields].sort());
  h.shopify.createOrder(shop, full);

  expect(
    (await deliver(h.app.url, "/webhooks/orders/create", { topic: "orders/create", shop, body: cut })).status,
  ).toBe(200);
  w = worker(h);
  await w.runOnce();
  const v = await verificationOf(shop, String(full.admin_graphql_api_id).split("/").at(-1)!);
  expect(v).toMatchObject({ outcome: "hijacked", orderValue: "404.95", currency: "USD" });
  // The code changes no commission: the basis is already the subtotal after discounts.
  expect(v.commission).toMatchObject({ creatorId: "cr_alice", amount: "40.50", redirected: true });
  expect(
    await prisma.orderDiscountCode.findMany({
      where: { verificationId: v.id },
      select: { code: true, amount: true, amountMinor: true, type: true, currency: true },
    }),
  ).toEqual([{ code: "SAVE10", amount: "10.00", amountMinor: 1000n, type: "fixed_amount", currency: "USD" }]);
});
