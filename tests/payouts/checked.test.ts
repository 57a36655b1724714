import { describe, expect, it } from "vitest";
import { waitsForMerchant } from "../../app/payouts/checked.server";

// Which sent payouts wait for the merchant's word: only one still open (neither paid nor bounced)
// whose provider could not settle it, as a Shopify line's CHECK or a parked PayPal run says.

const open = { method: "store_credit", voidedAt: null, settledAt: null, providerStatus: "SENDING" };

describe("waitsForMerchant", () => {
  it("holds for an open line Shopify's records left to the merchant, or a parked run's line", () => {
    expect(waitsForMerchant({ ...open, providerStatus: "CHECK" }, null)).toBe(true);
    expect(waitsForMerchant({ ...open, method: "paypal", providerStatus: null }, { state: "check" })).toBe(true);
  });

  it("never holds for a payout by hand, a paid or bounced one, or one still with the provider", () => {
    const at = new Date();
    expect(waitsForMerchant({ ...open, method: "manual", providerStatus: "CHECK" }, { state: "check" })).toBe(false);
    expect(waitsForMerchant({ ...open, providerStatus: "CHECK", settledAt: at }, { state: "check" })).toBe(false);
    expect(waitsForMerchant({ ...open, providerStatus: "CHECK", voidedAt: at }, { state: "check" })).toBe(false);
    expect(waitsForMerchant(open, { state: "sent" })).toBe(false);
    expect(waitsForMerchant(open, null)).toBe(false);
  });
});
