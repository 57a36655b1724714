import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import {
  MAX_KEPT_TEXT,
  MAX_ORDER_VALUE,
  parseStoredFacts,
  readOrderFacts,
  verificationWhere,
} from "../../app/verification/order-facts";

// Shopify's documented orders/create example (see tests/fixtures/webhooks/README.md).
const documented = JSON.parse(
  readFileSync(new URL("../fixtures/webhooks/orders-create-2026-07.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

const minimal = { id: 1001, created_at: "2026-11-21T10:00:00Z", currency: "USD" };

function facts(payload: unknown) {
  const read = readOrderFacts(payload);
  if (!read.ok) throw new Error(`refused: ${read.reason}`);
  return read.facts;
}

function reason(payload: unknown): string {
  const read = readOrderFacts(payload);
  if (read.ok) throw new Error("accepted");
  return read.reason;
}

describe("readOrderFacts", () => {
  it("reads Shopify's documented payload: the exact id from the gid, the amounts by basis, the time in UTC", () => {
    expect(facts(documented)).toEqual({
      id: "820982911946154508",
      gid: "gid://shopify/Order/820982911946154508",
      name: "#9999",
      createdAt: "2022-01-01T00:00:00.000Z",
      currency: "USD",
      amounts: { subtotal_after_discounts: "404.95", subtotal_before_discounts: "414.95", total_price: "404.95" },
      discounts: "20.00",
      cartAttributes: [],
      landingSite: null,
      cartToken: null,
      checkoutToken: null,
      discountCodes: [],
    });
  });

  it("reads where the shopper paid from (browser_ip, client_details.user_agent) apart from the facts it keeps", () => {
    const paid = {
      ...minimal,
      browser_ip: "198.51.100.9",
      client_details: { browser_ip: "2001:db8::1", user_agent: "Mozilla/5.0 (iPhone)" },
    };
    const read = readOrderFacts(paid);
    expect(read).toMatchObject({ ok: true, shopper: { browserIp: "2001:db8::1", userAgent: "Mozilla/5.0 (iPhone)" } });
    expect(JSON.stringify(facts(paid))).not.toContain("2001:db8::1");
    // Without client_details (an older payload): the order's own browser_ip, no user agent.
    expect(readOrderFacts({ ...minimal, browser_ip: "198.51.100.9" })).toMatchObject({
      shopper: { browserIp: "198.51.100.9", userAgent: null },
    });
    // Without protected customer data access Shopify sends neither; a garbled one is no address.
    expect(readOrderFacts(minimal)).toMatchObject({ shopper: { browserIp: null, userAgent: null } });
    expect(readOrderFacts({ ...minimal, browser_ip: "x".repeat(65) })).toMatchObject({
      ok: true,
      shopper: { browserIp: null },
    });
  });

  it("reads the discount codes, leaving out an entry it cannot read rather than the order", () => {
    const read = facts({
      ...documented,
      discount_codes: [
        { code: "SAVE20", amount: "12.50", type: "percentage" },
        { code: "FLAT5", amount: 5, type: "fixed_amount" },
        { code: "SAVE20", amount: "12.50", type: "percentage" },
        { code: "", amount: "1.00" },
        { code: "BAD", amount: "1,000.00" },
        "SHIP",
      ],
    });
    expect(read.discountCodes).toEqual([
      { code: "SAVE20", amount: "12.50", type: "percentage" },
      { code: "FLAT5", amount: "5", type: "fixed_amount" },
    ]);
    expect(facts({ ...documented, discount_codes: null }).discountCodes).toEqual([]);
  });

  it("keeps the first 20 distinct discount codes of an order that carries more", () => {
    const codes = Array.from({ length: 25 }, (_, i) => ({ code: `CODE${i}`, amount: "1.00", type: "fixed_amount" }));
    expect(facts({ ...documented, discount_codes: codes }).discountCodes.map((c) => c.code)).toEqual(
      codes.slice(0, 20).map((c) => c.code),
    );
  });

  it("refuses a field whose value zod's checks cannot read, instead of throwing (a fuzz counterexample)", () => {
    expect(
      readOrderFacts({
        id: 1,
        admin_graphql_api_id: { length: { toString: null } },
        landing_site: "",
        note_attributes: null,
      }),
    ).toEqual({ ok: false, reason: "payload is not an order: a field holds an unreadable value" });
  });

  it("takes the id itself when there is no gid, or the gid is not an order's", () => {
    expect(facts(minimal)).toMatchObject({ id: "1001", gid: "gid://shopify/Order/1001", name: null, amounts: {} });
    expect(facts({ ...minimal, id: "12345678901234567890" }).id).toBe("12345678901234567890");
    expect(facts({ ...minimal, admin_graphql_api_id: "gid://shopify/Customer/77" }).id).toBe("1001");
    expect(facts({ ...minimal, admin_graphql_api_id: "gid://shopify/Order/77x" }).id).toBe("1001");
  });

  it("refuses a numeric id past 2^53 that no gid gives exactly, and accepts 2^53 - 1", () => {
    expect(reason({ ...minimal, id: 820982911946154500 })).toBe(
      "id is beyond 2^53 and no admin_graphql_api_id gives it exactly",
    );
    expect(facts({ ...minimal, id: Number.MAX_SAFE_INTEGER }).id).toBe(String(Number.MAX_SAFE_INTEGER));
  });

  it("refuses ids that are not positive whole numbers, naming the field", () => {
    expect(reason({ ...minimal, id: 1.5 })).toBe("id must be a numeric id");
    expect(reason({ ...minimal, id: "12a" })).toBe("id must be a numeric id");
    expect(reason({ ...minimal, id: "123456789012345678901" })).toBe("id must be a numeric id");
    expect(reason({ ...minimal, id: 0 })).toMatch(/^id /);
    expect(reason({ ...minimal, id: -3 })).toMatch(/^id /);
    expect(reason({ ...minimal, admin_graphql_api_id: `gid://shopify/Order/${"1".repeat(90)}` })).toMatch(
      /^admin_graphql_api_id /,
    );
  });

  it("names a nested field by its whole path", () => {
    expect(reason({ ...minimal, note_attributes: [{ name: 5, value: "x" }] })).toMatch(/^note_attributes\.0\.name /);
  });

  it("names the payload itself when it is not an object", () => {
    expect(reason(null)).toMatch(/^payload /);
    expect(reason("order")).toMatch(/^payload /);
  });

  it("checks the time and the currency", () => {
    expect(reason({ ...minimal, created_at: "yesterday" })).toBe(
      "created_at must be an ISO 8601 time between 1970 and 9999",
    );
    expect(reason({ ...minimal, created_at: "1969-12-31T23:59:59Z" })).toBe(
      "created_at must be an ISO 8601 time between 1970 and 9999",
    );
    expect(facts({ ...minimal, created_at: "1970-01-01T00:00:00Z" }).createdAt).toBe("1970-01-01T00:00:00.000Z");
    expect(reason({ ...minimal, created_at: `2026-11-21T10:00:00${" ".repeat(45)}` })).toMatch(/^created_at /);
    expect(reason({ ...minimal, currency: "usd" })).toBe("currency must be an ISO 4217 code");
    expect(reason({ ...minimal, currency: "USDX" })).toBe("currency must be an ISO 4217 code");
    expect(reason({ ...minimal, currency: "XUSD" })).toBe("currency must be an ISO 4217 code");
  });

  it("reads amounts as exact decimal text, from a string or a JSON number", () => {
    expect(facts({ ...minimal, total_price: 12.5, subtotal_price: "0" }).amounts).toEqual({
      total_price: "12.5",
      subtotal_after_discounts: "0",
    });
    expect(facts({ ...minimal, total_price: MAX_ORDER_VALUE }).amounts).toEqual({ total_price: MAX_ORDER_VALUE });
    expect(facts({ ...minimal, total_price: "0.123456" }).amounts).toEqual({ total_price: "0.123456" });
  });

  it("keeps what discounts took, for an edit's subtotal before discounts; one it cannot read costs only that", () => {
    expect(facts({ ...minimal, total_discounts: "5.25" }).discounts).toBe("5.25");
    expect(facts({ ...minimal, total_discounts: 3 }).discounts).toBe("3");
    for (const garbled of ["-1.00", "1,000.00", { amount: 1 }, null]) {
      const read = facts({ ...minimal, total_discounts: garbled, total_price: "9.00" });
      expect(read.amounts).toEqual({ total_price: "9.00" });
      expect(read).not.toHaveProperty("discounts");
    }
    expect(parseStoredFacts(JSON.stringify(facts({ ...minimal, total_discounts: "5.25" })))?.discounts).toBe("5.25");
    expect(
      parseStoredFacts(JSON.stringify({ id: "1", createdAt: minimal.created_at, discounts: 5 })),
    ).not.toHaveProperty("discounts");
  });

  it("falls back to the current subtotal when the subtotal is missing", () => {
    expect(facts({ ...minimal, subtotal_price: null, current_subtotal_price: "9.99" }).amounts).toEqual({
      subtotal_after_discounts: "9.99",
    });
    expect(facts({ ...minimal, subtotal_price: "8.00", current_subtotal_price: "9.99" }).amounts).toEqual({
      subtotal_after_discounts: "8.00",
    });
  });

  it("refuses amounts that are negative, formatted, too precise or above the largest order value", () => {
    const malformed = "total_price must be a decimal amount of at least 0";
    expect(reason({ ...minimal, total_price: "-1.00" })).toBe(malformed);
    expect(reason({ ...minimal, total_price: "1,000.00" })).toBe(malformed);
    expect(reason({ ...minimal, total_price: "1.0000001" })).toBe(malformed);
    expect(reason({ ...minimal, total_price: "12345678901234" })).toBe(malformed);
    expect(reason({ ...minimal, total_price: "x1.00" })).toBe(malformed);
    expect(reason({ ...minimal, total_price: "1.00x" })).toBe(malformed);
    expect(reason({ ...minimal, subtotal_price: "1000000000000.000001" })).toBe(
      "subtotal_price must be at most 1000000000000",
    );
    expect(reason({ ...minimal, total_line_items_price: true })).toMatch(/^total_line_items_price /);
  });

  it("keeps only our cart attributes, as text, each cut to MAX_KEPT_TEXT", () => {
    const read = facts({
      ...minimal,
      note_attributes: [
        { name: CART_ATTRIBUTES.clickId, value: "c".repeat(MAX_KEPT_TEXT + 10) },
        { name: "gift_note", value: "happy birthday" },
        { name: CART_ATTRIBUTES.arrivedTag, value: null },
        { name: CART_ATTRIBUTES.capturedAt, value: 1700000000 },
        { name: CART_ATTRIBUTES.tagHistory, value: false },
      ],
    });
    expect(read.cartAttributes).toEqual([
      { name: CART_ATTRIBUTES.clickId, value: "c".repeat(MAX_KEPT_TEXT) },
      { name: CART_ATTRIBUTES.arrivedTag, value: "" },
      { name: CART_ATTRIBUTES.capturedAt, value: "1700000000" },
      { name: CART_ATTRIBUTES.tagHistory, value: "false" },
    ]);
  });

  it("cuts the landing page and the cart token, and stores neither NUL nor half an emoji", () => {
    const read = facts({
      ...minimal,
      name: "#1\u0000",
      landing_site: `/?lb_click=${"a".repeat(MAX_KEPT_TEXT)}`,
      cart_token: `${"t".repeat(255)}\u{1F600}`,
    });
    expect(read.name).toBe("#1\ufffd");
    expect(read.landingSite).toBe(`/?lb_click=${"a".repeat(MAX_KEPT_TEXT)}`.slice(0, MAX_KEPT_TEXT));
    expect(read.cartToken).toBe(`${"t".repeat(255)}\ufffd`);
    expect(facts({ ...minimal, cart_token: "" }).cartToken).toBeNull();
    expect(facts({ ...minimal, cart_token: "abc" }).cartToken).toBe("abc");
    expect(facts({ ...minimal, landing_site: "/?x=1" }).landingSite).toBe("/?x=1");
    expect(reason({ ...minimal, name: "n".repeat(256) })).toMatch(/^name /);
    expect(facts({ ...minimal, name: "n".repeat(255) }).name).toBe("n".repeat(255));
  });
});

describe("parseStoredFacts", () => {
  it("reads back what readOrderFacts gave", () => {
    const read = facts(documented);
    expect(parseStoredFacts(JSON.stringify(read))).toEqual(read);
  });

  it("fills what an earlier version did not store, and reads its noteAttributes", () => {
    const noteAttributes = [{ name: CART_ATTRIBUTES.clickId, value: "clk_1" }];
    expect(
      parseStoredFacts(JSON.stringify({ id: "5", createdAt: "2026-11-21T10:00:00.000Z", noteAttributes })),
    ).toEqual({
      id: "5",
      gid: "gid://shopify/Order/5",
      name: null,
      createdAt: "2026-11-21T10:00:00.000Z",
      currency: "USD",
      amounts: {},
      cartAttributes: noteAttributes,
      landingSite: null,
      cartToken: null,
      checkoutToken: null,
      discountCodes: [],
    });
    expect(
      parseStoredFacts(JSON.stringify({ id: "5", createdAt: "2026-11-21T10:00:00.000Z" }))?.cartAttributes,
    ).toEqual([]);
  });

  it("reads redacted or unreadable facts as none", () => {
    expect(parseStoredFacts("{}")).toBeNull();
    expect(parseStoredFacts("null")).toBeNull();
    expect(parseStoredFacts("not json")).toBeNull();
    expect(parseStoredFacts(JSON.stringify({ id: 5, createdAt: "2026-11-21T10:00:00.000Z" }))).toBeNull();
    expect(parseStoredFacts(JSON.stringify({ id: "5" }))).toBeNull();
  });
});

describe("verificationWhere", () => {
  it("names a verification by Shopify's order id when the URL carries digits, else by our id", () => {
    expect(verificationWhere("a.myshopify.com", "820982911946154508")).toEqual({
      shop: "a.myshopify.com",
      orderId: "820982911946154508",
    });
    expect(verificationWhere("a.myshopify.com", "cm3abc")).toEqual({ shop: "a.myshopify.com", id: "cm3abc" });
  });
});
