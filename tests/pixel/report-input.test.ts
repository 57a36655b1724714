import { describe, expect, it } from "vitest";
import { readPixelReport } from "../../app/pixel/report-input";
import { checkoutReport, landingReport } from "../support/pixel";

// The pixel's report as the app proxy reads it, field by field (tests/pixel/proxy-pixel.test.ts
// sends the same through the signed proxy).

const landing = landingReport("client-1", "clk_1", "alice-20");
const checkout = checkoutReport("client-1", "820982911946154508", "clk_1", "alice-20");
const errorOf = (body: unknown) => {
  const read = readPixelReport(body);
  return read.ok ? "accepted" : read.error;
};

describe("a pixel report as read", () => {
  it("takes a landing and a checkout as they are", () => {
    expect(readPixelReport(landing)).toEqual({ ok: true, report: landing });
    expect(readPixelReport(checkout)).toEqual({ ok: true, report: checkout });
    // A tag alone (the click id was swapped away), a click alone.
    expect(errorOf({ ...landing, clickId: null })).toBe("accepted");
    expect(errorOf({ ...landing, tag: null })).toBe("accepted");
    expect(errorOf({ ...checkout, clickId: null, tag: null })).toBe("accepted");
  });

  it("names the id that is not one Shopify gives, or not text", () => {
    expect(errorOf({ ...landing, eventId: 7 })).toBe("eventId must be a string");
    expect(errorOf({ ...landing, eventId: "evt 1" })).toBe("eventId is not an id Shopify gives");
    expect(errorOf({ ...landing, eventId: "" })).toBe("eventId is not an id Shopify gives");
    expect(errorOf({ ...landing, eventId: "e".repeat(129) })).toBe("eventId is not an id Shopify gives");
    expect(errorOf({ ...landing, eventId: "sh-1a2B_3.4:5" })).toBe("accepted");
    expect(errorOf({ ...landing, clientId: null })).toBe("clientId must be a string");
    expect(errorOf({ ...landing, clientId: "c".repeat(128) })).toBe("accepted");
  });

  it("takes only Shopify's numeric order ids, as text", () => {
    expect(errorOf({ ...checkout, orderId: 820982911 })).toBe("orderId must be a string");
    for (const orderId of ["0", "0123", "12a", "a12", "1".repeat(21), "-5", ""])
      expect([orderId, errorOf({ ...checkout, orderId })]).toEqual([orderId, "orderId is not an order id"]);
    expect(errorOf({ ...checkout, orderId: "1".repeat(20) })).toBe("accepted");
  });

  it("takes a checkout's token as orders/create's checkout_token has it, and never on a landing", () => {
    expect(errorOf({ ...checkout, checkoutToken: 7 })).toBe("checkoutToken must be a string");
    for (const checkoutToken of ["!tok", "tok!", "t k", "", "t".repeat(129)])
      expect([checkoutToken, errorOf({ ...checkout, checkoutToken })]).toEqual([
        checkoutToken,
        "checkoutToken is not a checkout token",
      ]);
    expect(readPixelReport({ ...checkout, checkoutToken: "Z2NwLXVz_1-a".padEnd(128, "x") })).toMatchObject({
      ok: true,
      report: { checkoutToken: "Z2NwLXVz_1-a".padEnd(128, "x") },
    });
    expect(errorOf({ ...landing, checkoutToken: "tok" })).toBe("a landing carries no checkoutToken");
    expect(errorOf({ ...landing, checkoutToken: null })).toBe("accepted");
  });

  it("refuses what is no object at all", () => {
    expect(readPixelReport(null)).toMatchObject({ ok: false });
    expect(readPixelReport("landing")).toMatchObject({ ok: false });
  });
});
