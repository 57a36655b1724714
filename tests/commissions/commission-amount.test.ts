import Decimal from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commissionAmount, minorToAmount, remainingAfterRefunds } from "../../app/commissions/commission-amount";
import { minorDigits } from "../../app/units/minor-units";

describe("commissionAmount", () => {
  it("is exact where floats are not", () => {
    expect(commissionAmount("0.30", "10", "USD")).toEqual({ amount: "0.03", amountMinor: 3n });
    expect(commissionAmount("99.99", "7.5", "USD")).toEqual({ amount: "7.50", amountMinor: 750n });
    expect(commissionAmount("1.005", "100", "USD").amount).toBe("1.01");
    expect(commissionAmount("123456789012345.67", "12.3456", "EUR").amount).toBe("15241481344308.15");
  });

  it("rounds to each currency's minor unit", () => {
    expect(minorDigits("JPY")).toBe(0);
    expect(minorDigits("KWD")).toBe(3);
    expect(commissionAmount("1999", "7.5", "JPY")).toEqual({ amount: "150", amountMinor: 150n });
    expect(commissionAmount("10.000", "12.5", "KWD")).toEqual({ amount: "1.250", amountMinor: 1250n });
  });

  it("amountMinor always equals amount in minor units", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (cents, rateMillis) => {
          const value = new Decimal(cents.toString()).dividedBy(100).toFixed(2);
          const rate = new Decimal(rateMillis).dividedBy(10_000).toFixed(4);
          const { amount, amountMinor } = commissionAmount(value, rate, "USD");
          expect(new Decimal(amount).times(100).toFixed(0)).toBe(amountMinor.toString());
        },
      ),
    );
  });
});

describe("remainingAfterRefunds", () => {
  it("pro-rates the credit on what is left of the basis, half-up", () => {
    expect(remainingAfterRefunds(1250n, "100.00", "0")).toBe(1250n);
    expect(remainingAfterRefunds(1250n, "100.00", "30.00")).toBe(875n);
    // 1000 x 2/3 = 666.67 -> 667
    expect(remainingAfterRefunds(1000n, "30.00", "10.00")).toBe(667n);
    expect(remainingAfterRefunds(1250n, "100.00", "100.00")).toBe(0n);
  });

  it("takes back no more than the whole credit when more than the basis is refunded", () => {
    expect(remainingAfterRefunds(1250n, "100.00", "150.00")).toBe(0n);
  });

  it("leaves the credit whole on a zero basis", () => {
    expect(remainingAfterRefunds(1250n, "0", "0")).toBe(1250n);
    expect(remainingAfterRefunds(1250n, "0.00", "5.00")).toBe(1250n);
  });
});

describe("minorToAmount", () => {
  it("writes minor units as the currency's decimal amount, sign kept", () => {
    expect(minorToAmount(-1250n, "USD")).toBe("-12.50");
    expect(minorToAmount(7n, "USD")).toBe("0.07");
    expect(minorToAmount(150n, "JPY")).toBe("150");
    expect(minorToAmount(1250n, "KWD")).toBe("1.250");
  });
});
