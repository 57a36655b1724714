import { describe, expect, it } from "vitest";
import {
  payoutFigures,
  type AppLine,
  type AppRecord,
  type DueBalance,
  type PayoutSnapshot,
  type ProviderPayment,
} from "../../sandbox/chaos/payout-ledger";
import { minorOf } from "../../sandbox/chaos/payout-snapshot";
import { passed } from "../../sandbox/chaos/report";

// The chaos run's payout figures (`--payouts`), each shown to count what it names, from the
// providers' own records against the ledger: a balance paid twice (two payments for one line, a
// payment no line accounts for, one for a line the app gave back, more than was due) and a record
// marked paid whose money no provider paid must fail the run; a balance parked for the merchant
// is neither.

const SHOP = "chaos-1.myshopify.com";
const due = (creatorId: string, dueMinor: bigint, ...recordIds: string[]): DueBalance => ({
  shop: SHOP,
  creatorId,
  currency: "USD",
  dueMinor,
  recordIds,
});
const line = (payoutId: string, creatorId: string, over: Partial<AppLine> = {}): AppLine => ({
  payoutId,
  shop: SHOP,
  method: "paypal",
  creatorId,
  currency: "USD",
  amountMinor: 1000n,
  idempotencyKey: `form:USD:${creatorId}`,
  providerItemId: null,
  state: "paid",
  ...over,
});
const record = (id: string, creatorId: string, status: string, payoutId: string | null): AppRecord => ({
  id,
  shop: SHOP,
  creatorId,
  currency: "USD",
  status,
  payoutId,
});
const payment = (over: Partial<ProviderPayment> & Pick<ProviderPayment, "id" | "creatorId">): ProviderPayment => ({
  method: "paypal",
  shop: SHOP,
  currency: "USD",
  amountMinor: 1000n,
  ref: null,
  ...over,
});

/** Every method paid once, a PayPal item returned and its balance paid again by hand. */
function clean(): PayoutSnapshot {
  return {
    due: [
      due("ana", 1000n, "r1"),
      due("bo", 1000n, "r2"),
      due("cy", 1000n, "r3"),
      due("di", 1000n, "r4"),
      due("ed", 1000n, "r5"),
    ],
    lines: [
      line("p1", "ana"),
      line("p2", "bo", { method: "store_credit", providerItemId: "gid://credit/1" }),
      line("p3", "cy", { method: "gift_card" }),
      line("p4", "di", { method: "manual", idempotencyKey: "hand-1" }),
      line("p5", "ed", { state: "bounced" }),
      line("p6", "ed", { method: "manual", idempotencyKey: "hand-2" }),
    ],
    records: [
      record("r1", "ana", "paid", "p1"),
      record("r2", "bo", "paid", "p2"),
      record("r3", "cy", "paid", "p3"),
      record("r4", "di", "paid", "p4"),
      record("r5", "ed", "paid", "p6"),
    ],
    payments: [
      payment({ id: "ITEM1", creatorId: "ana", ref: "p1" }),
      payment({ method: "store_credit", id: "gid://credit/1", creatorId: "bo" }),
      payment({ method: "gift_card", id: "gid://card/1", creatorId: "cy", ref: "p3" }),
      payment({ method: "manual", id: "hand-1 USD:di", creatorId: "di", ref: "hand-1" }),
      payment({ method: "manual", id: "hand-2 USD:ed", creatorId: "ed", ref: "hand-2" }),
    ],
  };
}

const figures = (snapshot: PayoutSnapshot) => {
  const { problems, ...result } = payoutFigures(snapshot);
  return { ...result, problems: problems.length };
};

describe("the chaos run's payout figures", () => {
  it("passes balances each paid once by their provider, a returned one paid again by hand", () => {
    expect(figures(clean())).toEqual({
      payoutsPaidTwice: 0,
      payoutsMarkedPaidUnpaid: 0,
      payoutsDue: 5,
      payoutsPaid: 5,
      payoutsPayable: 0,
      payoutsParked: 0,
      payoutsInFlight: 0,
      problems: 0,
    });
  });

  it("counts a balance paid twice: a second payment for a line, one no line accounts for, more than was due", () => {
    const twice = clean();
    twice.payments.push(payment({ method: "gift_card", id: "gid://card/2", creatorId: "cy", ref: "p3" }));
    expect(figures(twice)).toMatchObject({ payoutsPaidTwice: 1, payoutsMarkedPaidUnpaid: 0 });

    // A store credit the app never recorded, for a balance it paid already.
    const stray = clean();
    stray.payments.push(payment({ method: "store_credit", id: "gid://credit/9", creatorId: "bo" }));
    expect(figures(stray)).toMatchObject({ payoutsPaidTwice: 1 });

    // Two lines for one balance, each paid once: the creator received twice what was due.
    const over = clean();
    over.lines.push(line("p7", "ana"));
    over.payments.push(payment({ id: "ITEM7", creatorId: "ana", ref: "p7" }));
    expect(figures(over)).toMatchObject({ payoutsPaidTwice: 1 });
  });

  it("counts a payment the app gave back as unpaid, its balance payable again", () => {
    const given = clean();
    given.lines[2] = { ...given.lines[2]!, state: "bounced" };
    given.records[2] = record("r3", "cy", "approved", null);
    expect(figures(given)).toMatchObject({ payoutsPaidTwice: 1, payoutsMarkedPaidUnpaid: 0, payoutsPayable: 1 });
  });

  it("counts each record marked paid whose money no provider paid, or paid short", () => {
    const unpaid = clean();
    unpaid.payments = unpaid.payments.filter((p) => p.id !== "ITEM1");
    unpaid.records.push(record("r1b", "ana", "paid", "p1"));
    expect(figures(unpaid)).toMatchObject({ payoutsPaidTwice: 0, payoutsMarkedPaidUnpaid: 2 });

    const short = clean();
    short.payments[0] = payment({ id: "ITEM1", creatorId: "ana", ref: "p1", amountMinor: 900n });
    expect(figures(short)).toMatchObject({ payoutsMarkedPaidUnpaid: 1 });

    // Paid to another creator: not this line's payment.
    const elsewhere = clean();
    elsewhere.payments[0] = payment({ id: "ITEM1", creatorId: "bo", ref: "p1" });
    expect(figures(elsewhere)).toMatchObject({ payoutsPaidTwice: 1, payoutsMarkedPaidUnpaid: 1 });
  });

  it("leaves a balance parked for the merchant out of both, whether or not its credit landed", () => {
    const parked = clean();
    parked.lines[1] = { ...parked.lines[1]!, providerItemId: null, state: "parked" };
    parked.records[1] = record("r2", "bo", "paying", "p2");
    expect(figures(parked)).toMatchObject({ payoutsPaidTwice: 0, payoutsMarkedPaidUnpaid: 0, payoutsParked: 1 });
    parked.payments = parked.payments.filter((p) => p.method !== "store_credit");
    expect(figures(parked)).toMatchObject({ payoutsPaidTwice: 0, payoutsMarkedPaidUnpaid: 0, payoutsParked: 1 });
    parked.lines[1] = { ...parked.lines[1]!, state: "waiting" };
    expect(figures(parked)).toMatchObject({ payoutsParked: 0, payoutsInFlight: 1 });
  });

  it("fails the run on either figure", () => {
    const safe = { lost: 0, doubleTagged: 0, doubleCredited: 0, hijackedWithoutTag: 0 };
    expect(passed(safe)).toBe(true);
    expect(passed({ ...safe, payoutsPaidTwice: 0, payoutsMarkedPaidUnpaid: 0 })).toBe(true);
    expect(passed({ ...safe, payoutsPaidTwice: 1, payoutsMarkedPaidUnpaid: 0 })).toBe(false);
    expect(passed({ ...safe, payoutsPaidTwice: 0, payoutsMarkedPaidUnpaid: 1 })).toBe(false);
  });

  it("reads providers' amounts exactly in the currency's minor units", () => {
    expect(minorOf("12.5", "USD")).toBe(1250n);
    expect(minorOf("12.50", "EUR")).toBe(1250n);
    expect(minorOf("1234", "JPY")).toBe(1234n);
  });
});
