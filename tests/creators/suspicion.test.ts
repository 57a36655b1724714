import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUSPICION, suspicionOf } from "../../app/creators/suspicion";

// The creator-level rule on its own: marks and stand-downs against the creator's orders.

describe("suspicionOf", () => {
  it("two claims, one with a mark, making half the creator's orders: suspected", () => {
    expect(suspicionOf({ orders: 2, claims: 2, tampering: 1 })).toBe("marked-claims");
    expect(suspicionOf({ orders: 4, claims: 2, tampering: 2 })).toBe("marked-claims");
  });

  it("one odd order is not a pattern, however marked", () => {
    expect(suspicionOf({ orders: 1, claims: 1, tampering: 1 })).toBeNull();
  });

  it("claims without a mark: suspected only at four stand-downs that are half the creator's orders", () => {
    expect(suspicionOf({ orders: 3, claims: 3, tampering: 0 })).toBeNull();
    expect(suspicionOf({ orders: 8, claims: 4, tampering: 0 })).toBe("stood-down");
    expect(suspicionOf({ orders: 9, claims: 4, tampering: 0 })).toBeNull();
  });

  it("a busy creator who stands down now and then, marks included, is not suspected", () => {
    expect(suspicionOf({ orders: 30, claims: 5, tampering: 2 })).toBeNull();
    expect(suspicionOf({ orders: 0, claims: 0, tampering: 0 })).toBeNull();
  });

  it("never suspects below the share, and always at or above it with enough marked claims", () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(50), (credited, claims, tampering) => {
        const counts = { orders: credited + claims, claims, tampering: Math.min(tampering, claims) };
        const reason = suspicionOf(counts);
        if (claims < SUSPICION.minShare * counts.orders) expect(reason).toBeNull();
        else if (claims >= SUSPICION.minClaims && counts.tampering >= SUSPICION.minTampering)
          expect(reason).toBe("marked-claims");
        else if (claims >= SUSPICION.minStoodDown) expect(reason).toBe("stood-down");
        else expect(reason).toBeNull();
      }),
    );
  });
});
