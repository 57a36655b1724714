import { describe, expect, it } from "vitest";
import { creatorEvidence } from "../../app/attribution/creator-evidence";
import {
  judgeWitnesses,
  type LandingTouchFact,
  type OrderWitnesses,
  type RecordedVisit,
} from "../../app/attribution/witnesses";

// What one order says of each creator it names and did not credit, from the same facts the
// policy judges: the marks a planted click leaves (a script named it and no page landed with
// it, a visit recorded under a reset visitor, a report after the order) and the stand-down an
// honest second creator leaves too.

const at = (minute: number) => new Date(Date.UTC(2026, 11, 6, 12, minute));
const seen = (clickId: string, minute: number, tag: string | null = null): LandingTouchFact => ({
  clickId,
  tag,
  seenAt: at(minute),
});
const visit = (clickId: string | null, minute: number | null = null): RecordedVisit => ({
  clickId,
  tag: null,
  at: minute === null ? null : at(minute),
});
const CREATORS = new Map([
  ["alice-click", "cr_alice"],
  ["bob-click", "cr_bob"],
  ["att-click", "cr_attacker"],
  ["att-click-2", "cr_attacker"],
]);

function facts(over: Partial<OrderWitnesses> = {}): OrderWitnesses {
  return {
    shopify: { landingSite: visit("alice-click", 0), journey: null },
    touches: [],
    pixel: null,
    unbound: [],
    cart: { clickId: null, tag: null, capturedAt: null, tagHistory: [] },
    creators: CREATORS,
    orderAt: at(30),
    ...over,
  };
}

const evidenceOf = (f: OrderWitnesses) => creatorEvidence(f, judgeWitnesses(f));

describe("creatorEvidence", () => {
  it("a second creator's link followed in the same visit, seen by every witness: stood down, no mark", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("bob-click", 5)],
      pixel: {
        checkout: [{ clickId: "bob-click", tag: null }],
        landings: [seen("alice-click", 0), seen("bob-click", 5)],
      },
      cart: { clickId: "bob-click", tag: "bob-10", capturedAt: null, tagHistory: [] },
    });
    expect(evidenceOf(f)).toEqual([
      { creatorId: "cr_bob", clickIds: ["bob-click"], outcome: "stood-down", signals: ["later"], tampering: false },
    ]);
  });

  it("a touch no page view came with (the pixel saw the checkout, never that landing): not a landing", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("att-click", 20)],
      pixel: { checkout: [{ clickId: "alice-click", tag: null }], landings: [seen("alice-click", 0)] },
    });
    expect(evidenceOf(f)).toEqual([
      {
        creatorId: "cr_attacker",
        clickIds: ["att-click"],
        outcome: "stood-down",
        signals: ["not-a-landing", "later"],
        tampering: true,
      },
    ]);
  });

  it("the cart's attributes alone name a click: not a landing, and several clicks of one creator are one claim", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("att-click-2", 25)],
      pixel: { checkout: [{ clickId: "att-click", tag: null }], landings: [seen("alice-click", 0)] },
      cart: { clickId: "att-click", tag: "coupons-99", capturedAt: null, tagHistory: [] },
    });
    const [claim, ...rest] = evidenceOf(f);
    expect(rest).toEqual([]);
    expect(claim).toMatchObject({ creatorId: "cr_attacker", tampering: true, signals: ["not-a-landing", "later"] });
    expect(claim!.clickIds.sort()).toEqual(["att-click", "att-click-2"]);
  });

  it("Shopify recorded another creator's visit minutes after the credited click was seen: late record", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 20), journey: { ready: true, visits: [visit("att-click", 20)] } },
      touches: [seen("alice-click", 0)],
      pixel: { checkout: [{ clickId: "alice-click", tag: null }], landings: [] },
    });
    expect(evidenceOf(f)).toEqual([
      expect.objectContaining({ creatorId: "cr_attacker", signals: ["late-record", "later"], tampering: true }),
    ]);
  });

  it("the same visit recorded days after the credited click (a shopper coming back): no mark", () => {
    const threeDays = 3 * 24 * 60;
    const f = facts({
      shopify: {
        landingSite: visit("bob-click", threeDays),
        journey: { ready: true, visits: [visit("bob-click", threeDays)] },
      },
      touches: [seen("alice-click", 0), seen("bob-click", threeDays)],
      pixel: null,
      orderAt: at(threeDays + 30),
    });
    const judged = judgeWitnesses(f);
    expect(judged).toMatchObject({ kind: "attributed", evidence: { clickId: "alice-click" } });
    expect(creatorEvidence(f, judged)).toEqual([
      expect.objectContaining({ creatorId: "cr_bob", signals: ["later"], tampering: false }),
    ]);
  });

  it("only Shopify's record names a click the pixel, which saw the checkout, never saw land: refused, unconfirmed", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 20), journey: null },
      pixel: { checkout: [{ clickId: null, tag: null }], landings: [] },
    });
    expect(evidenceOf(f)).toEqual([
      {
        creatorId: "cr_attacker",
        clickIds: ["att-click"],
        outcome: "refused",
        signals: ["unconfirmed-record"],
        tampering: true,
      },
    ]);
  });

  it("tracking declined: a visit recorded after the same source brought alice's click is the attacker's unconfirmed record", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 20), journey: { ready: true, visits: [visit("att-click", 20)] } },
      pixel: null,
      linked: { first: { ...seen("alice-click", 0), witness: "landing" }, ownSince: null },
    });
    expect(evidenceOf(f)).toEqual([
      expect.objectContaining({ creatorId: "cr_alice", outcome: "refused", signals: [], tampering: false }),
      expect.objectContaining({
        creatorId: "cr_attacker",
        outcome: "refused",
        signals: ["unconfirmed-record"],
        tampering: true,
      }),
    ]);
  });

  it("a click first reported after the order was placed, and one only unbound reports named", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("att-click", 31)],
      unbound: ["bob-click"],
    });
    expect(evidenceOf(f)).toEqual([
      expect.objectContaining({ creatorId: "cr_attacker", signals: ["after-order", "later"], tampering: true }),
      expect.objectContaining({ creatorId: "cr_bob", signals: ["unbound", "later"], tampering: true }),
    ]);
  });

  it("a contested order names every creator, the provisional one too; a reset identity marks the later click", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 20), journey: null },
      touches: [seen("att-click", 20)],
      linked: { first: { ...seen("alice-click", 0), witness: "landing" }, ownSince: at(20) },
    });
    const judged = judgeWitnesses(f);
    expect(judged).toMatchObject({ kind: "attributed", contest: { reason: "identity-changed" } });
    expect(creatorEvidence(f, judged)).toEqual([
      {
        creatorId: "cr_alice",
        clickIds: ["alice-click"],
        outcome: "contested",
        signals: ["later", "contested"],
        tampering: false,
      },
      {
        creatorId: "cr_attacker",
        clickIds: ["att-click"],
        outcome: "contested",
        signals: ["identity-changed", "contested"],
        tampering: true,
      },
    ]);
  });

  it("the credited creator, clicks of unknown creators and clicks the service did not know leave no claim", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("made-up", 5), seen("other-alice", 6)],
      creators: new Map([...CREATORS, ["other-alice", "cr_alice"]]),
      unknown: new Set(["made-up"]),
    });
    expect(evidenceOf(f)).toEqual([]);
    expect(creatorEvidence(f, { kind: "read-journey" })).toEqual([]);
  });

  it("a blocked creator's click takes no order: the other claim is credited", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 0), journey: null },
      touches: [seen("att-click", 0), seen("bob-click", 1)],
      blocked: new Set(["cr_attacker"]),
    });
    const judged = judgeWitnesses(f);
    expect(judged).toMatchObject({ kind: "attributed", evidence: { clickId: "bob-click" } });
    expect(judged.kind === "attributed" && judged.tamper?.findings).toContain(
      "click att-click takes no credit: its creator is blocked by the merchant",
    );
  });

  it("a contest a suspected creator's click is in is judged without it: the other claim, or nobody", () => {
    const contested = facts({
      shopify: { landingSite: null, journey: null },
      touches: [seen("att-click", 0), seen("bob-click", 1)],
    });
    expect(judgeWitnesses(contested)).toMatchObject({ kind: "attributed", contest: { reason: "creators-differ" } });
    const judged = judgeWitnesses({ ...contested, suspected: new Set(["cr_attacker"]) });
    expect(judged).toMatchObject({ kind: "attributed", evidence: { clickId: "bob-click" }, contest: null });
    expect(judged.kind === "attributed" && judged.tamper?.findings).toContain(
      "click att-click takes no credit: its creator is suspected of hijacking orders, and it was contested",
    );
    // Outside a contest a suspected creator's click is judged as any other (its commission waits instead).
    const alone = facts({
      shopify: { landingSite: visit("att-click", 0), journey: null },
      touches: [seen("att-click", 0)],
    });
    expect(judgeWitnesses({ ...alone, suspected: new Set(["cr_attacker"]) })).toMatchObject({
      kind: "attributed",
      evidence: { clickId: "att-click" },
    });
  });

  it("with neither the embed nor the pixel running, a cart-only click carries no mark: no witness could have seen it land", () => {
    const f = facts({
      shopify: { landingSite: visit("alice-click", 0), journey: { ready: true, visits: [visit("alice-click", 0)] } },
      cart: { clickId: "bob-click", tag: "bob-10", capturedAt: null, tagHistory: [] },
    });
    expect(evidenceOf(f)).toEqual([
      { creatorId: "cr_bob", clickIds: ["bob-click"], outcome: "stood-down", signals: ["later"], tampering: false },
    ]);
  });

  it("a click's first sighting is its earliest by any witness: a touch after the order does not make it late", () => {
    const f = facts({
      touches: [seen("alice-click", 0), seen("bob-click", 45)],
      pixel: {
        checkout: [{ clickId: null, tag: null }],
        landings: [seen("alice-click", 0), seen("bob-click", 10), seen("bob-click", 50)],
      },
    });
    expect(evidenceOf(f)).toEqual([expect.objectContaining({ creatorId: "cr_bob", signals: ["later"] })]);
  });

  it("a visit recorded an hour to the minute after the credited click is still mid-journey; a minute later it is not", () => {
    const at60 = facts({
      shopify: { landingSite: visit("att-click", 60), journey: { ready: true, visits: [visit("att-click", 60)] } },
      touches: [seen("alice-click", 0)],
      orderAt: at(90),
    });
    expect(evidenceOf(at60)).toEqual([expect.objectContaining({ signals: ["late-record", "later"] })]);
    const at61 = facts({
      shopify: { landingSite: visit("att-click", 61), journey: { ready: true, visits: [visit("att-click", 61)] } },
      touches: [seen("alice-click", 0)],
      orderAt: at(90),
    });
    expect(evidenceOf(at61)).toEqual([expect.objectContaining({ signals: ["later"] })]);
  });

  it("a reset journey's contest with a suspected creator goes to the journey's earlier click, which no bound witness named", () => {
    const f = facts({
      shopify: { landingSite: visit("att-click", 20), journey: null },
      touches: [seen("att-click", 20, "coupons-99")],
      linked: { first: { ...seen("alice-click", 0, "alice-20"), witness: "landing" }, ownSince: at(20) },
      suspected: new Set(["cr_attacker"]),
    });
    const judged = judgeWitnesses(f);
    expect(judged).toMatchObject({
      kind: "attributed",
      evidence: { source: "app_proxy", clickId: "alice-click", arrivedTag: "alice-20", capturedAt: at(0) },
      contest: null,
      tamper: {
        findings: [
          "click att-click takes no credit: its creator is suspected of hijacking orders, and it was contested",
        ],
      },
    });
    // The suspect alone in a contest: nobody.
    const organic = facts({
      shopify: { landingSite: null, journey: null },
      touches: [seen("att-click", 20), seen("att-click-2", 21)],
      creators: new Map([...CREATORS, ["att-click-2", "cr_other_suspect"]]),
      suspected: new Set(["cr_attacker", "cr_other_suspect"]),
    });
    expect(judgeWitnesses(organic)).toMatchObject({ kind: "unattributed" });
  });
});
