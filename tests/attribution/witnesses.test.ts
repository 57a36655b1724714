import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  judgeWitnesses,
  witnessOf,
  type Attribution,
  type LandingTouchFact,
  type OrderWitnesses,
  type RecordedVisit,
} from "../../app/attribution/witnesses";

// The attribution policy of docs/attribution.md, on its own: what Shopify's servers recorded
// outranks what any storefront script reported; scripts alone decide only uncontested.

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 12, minute));
const visit = (clickId: string | null, tag: string | null = null, minute: number | null = null): RecordedVisit => ({
  clickId,
  tag,
  at: minute === null ? null : at(minute),
});
const seen = (clickId: string, tag: string | null, minute: number): LandingTouchFact => ({
  clickId,
  tag,
  seenAt: at(minute),
});

function witnesses(over: Partial<OrderWitnesses> = {}): OrderWitnesses {
  return {
    shopify: { landingSite: null, journey: null },
    touches: [],
    pixel: null,
    unbound: [],
    cart: { clickId: null, tag: null, capturedAt: null, tagHistory: [] },
    creators: new Map(),
    ...over,
  };
}

function attributed(judged: Attribution) {
  if (judged.kind !== "attributed") throw new Error(`expected an attribution, got ${judged.kind}`);
  return judged;
}

describe("judgeWitnesses", () => {
  it("nothing named a click: unattributed, with no journey read for a landing page without one", () => {
    expect(judgeWitnesses(witnesses())).toMatchObject({ kind: "unattributed" });
    expect(judgeWitnesses(witnesses({ shopify: { landingSite: visit(null), journey: null } }))).toMatchObject({
      kind: "unattributed",
    });
  });

  it("Shopify's landing page outranks every script: a touch and a cart naming another click take no credit", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit("alice-click", "alice-20"), journey: null },
          touches: [seen("alice-click", "alice-20", 1), seen("attacker-click", "evil-1", 5)],
          cart: { clickId: "attacker-click", tag: "evil-1", capturedAt: null, tagHistory: [] },
          creators: new Map([
            ["alice-click", "cr_alice"],
            ["attacker-click", "cr_attacker"],
          ]),
        }),
      ),
    );
    // Shopify's record chose the click; the embed brought it to the app first.
    expect(judged.evidence).toMatchObject({ source: "app_proxy", clickId: "alice-click", arrivedTag: "alice-20" });
    expect(judged.contest).toBeNull();
    expect(judged.tamper?.competingClicks).toEqual([
      { clickId: "attacker-click", witness: "landing", firstSeenAt: at(5).toISOString(), why: "unrecorded" },
    ]);
  });

  it("a script that raced the embed makes the journey worth reading; Shopify's visit then settles it", () => {
    const facts = witnesses({
      shopify: { landingSite: visit("alice-click", "alice-20"), journey: null },
      touches: [seen("attacker-click", "evil-1", 1), seen("alice-click", "alice-20", 2)],
    });
    expect(judgeWitnesses(facts)).toEqual({ kind: "read-journey" });
    const judged = attributed(
      judgeWitnesses({
        ...facts,
        shopify: { ...facts.shopify, journey: { ready: true, visits: [visit("alice-click", "alice-20", 0)] } },
      }),
    );
    expect(judged.evidence).toMatchObject({ source: "app_proxy", clickId: "alice-click", capturedAt: at(0) });
    expect(judged.contest).toBeNull();
    expect(judged.tamper?.competingClicks).toMatchObject([{ clickId: "attacker-click", why: "unrecorded" }]);
  });

  it("the journey's earlier visit keeps the credit: a returning visitor who came back through another link", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: {
            landingSite: visit("bob-click", "bob-1"),
            journey: { ready: true, visits: [visit("alice-click", "alice-20", 0), visit("bob-click", "bob-1", 50)] },
          },
          touches: [seen("alice-click", "alice-20", 1), seen("bob-click", "bob-1", 51)],
        }),
      ),
    );
    expect(judged.evidence).toMatchObject({ clickId: "alice-click", arrivedTag: "alice-20" });
    expect(judged.tamper?.competingClicks).toEqual([
      { clickId: "bob-click", witness: "landing", firstSeenAt: at(51).toISOString(), why: "later" },
    ]);
  });

  it("the tag arrived is the latest any bound witness reported with the credited click: a swap after landing is the hijack", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit("alice-click", "alice-20"), journey: null },
          pixel: { checkout: [], landings: [seen("alice-click", "alice-20", 1), seen("alice-click", "honey-77", 4)] },
        }),
      ),
    );
    expect(judged.evidence).toMatchObject({ clickId: "alice-click", arrivedTag: "honey-77" });
    expect(judged.evidence.tagHistory.map((h) => h.tag)).toEqual(["alice-20", "honey-77"]);
    // A landing page whose tag was stripped, and no script seeing the click: no tag arrived.
    const stripped = attributed(
      judgeWitnesses(witnesses({ shopify: { landingSite: visit("c", null), journey: null } })),
    );
    expect(stripped.evidence.arrivedTag).toBeNull();
  });

  it("with no landing page recorded, the first click scripts reported keeps the credit, uncontested when one creator", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", "alice-20", 1), seen("a2", "alice-20", 3)],
          creators: new Map([
            ["a1", "cr_alice"],
            ["a2", "cr_alice"],
          ]),
        }),
      ),
    );
    expect(judged.evidence).toMatchObject({ source: "app_proxy", clickId: "a1" });
    expect(judged.contest).toBeNull();
  });

  it("scripts naming different creators, or a creator nobody knows, contest the order", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", "alice-20", 1)],
          pixel: { checkout: [], landings: [seen("x1", "evil", 2)] },
          creators: new Map([
            ["a1", "cr_alice"],
            ["x1", "cr_attacker"],
          ]),
        }),
      ),
    );
    expect(judged.evidence.clickId).toBe("a1");
    expect(judged.contest).toEqual({
      reason: "creators-differ",
      claims: [
        {
          clickId: "a1",
          creatorId: "cr_alice",
          witnesses: ["landing"],
          firstSeenAt: at(1).toISOString(),
          arrivedTag: "alice-20",
        },
        {
          clickId: "x1",
          creatorId: "cr_attacker",
          witnesses: ["pixel"],
          firstSeenAt: at(2).toISOString(),
          arrivedTag: "evil",
        },
      ],
    });
    const unknown = attributed(
      judgeWitnesses(
        witnesses({ touches: [seen("a1", "t", 1), seen("x1", "t", 2)], creators: new Map([["a1", "cr_alice"]]) }),
      ),
    );
    expect(unknown.contest?.reason).toBe("creators-differ");
  });

  it("a click only scripts reported, on a visit Shopify recorded without one, waits for the merchant", () => {
    const facts = witnesses({
      shopify: { landingSite: visit(null), journey: null },
      touches: [seen("x1", "evil", 1)],
      cart: { clickId: "x1", tag: "evil", capturedAt: null, tagHistory: [] },
      creators: new Map([["x1", "cr_attacker"]]),
    });
    expect(judgeWitnesses(facts)).toEqual({ kind: "read-journey" });
    const ready = attributed(
      judgeWitnesses({
        ...facts,
        shopify: { landingSite: visit(null), journey: { ready: true, visits: [visit(null, null, 0)] } },
      }),
    );
    expect(ready.contest).toMatchObject({
      reason: "unrecorded-click",
      claims: [{ clickId: "x1", creatorId: "cr_attacker", witnesses: ["landing", "cart_attributes"] }],
    });
    const notReady = attributed(
      judgeWitnesses({ ...facts, shopify: { landingSite: visit(null), journey: { ready: false, visits: [] } } }),
    );
    expect(notReady.contest?.reason).toBe("journey-not-ready");
    // Shopify recorded no landing page at all (not an online store order): one creator's claim stands.
    const unrecorded = attributed(judgeWitnesses({ ...facts, shopify: { landingSite: null, journey: null } }));
    expect(unrecorded.contest).toBeNull();
  });

  it("a journey whose first visit carried the click settles a visit that landed without one: no contest", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: {
            landingSite: visit(null),
            journey: { ready: true, visits: [visit("alice-click", "alice-20", 0), visit(null, null, 3000)] },
          },
          touches: [seen("alice-click", "alice-20", 1)],
        }),
      ),
    );
    expect(judged.evidence).toMatchObject({ source: "app_proxy", clickId: "alice-click", capturedAt: at(0) });
    expect(judged.contest).toBeNull();
    // With no script seeing it, the landing page Shopify recorded is the witness.
    const alone = attributed(judgeWitnesses(witnesses({ shopify: { landingSite: visit("c9", "t"), journey: null } })));
    expect(alone.evidence).toMatchObject({ source: "landing_site", clickId: "c9", arrivedTag: "t", capturedAt: null });
  });

  it("reports that named the order without its checkout token are listed as evidence, never counted", () => {
    const judged = judgeWitnesses(witnesses({ unbound: ["x1", "x1", "x2"] }));
    expect(judged).toMatchObject({ kind: "unattributed", witnesses: { unbound: ["x1", "x2"] } });
  });

  it("the cart's attributes are held against the embed's touches: a removed or foreign click is a finding", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", "alice-20", 1)],
          cart: { clickId: null, tag: null, capturedAt: null, tagHistory: [] },
        }),
      ),
    );
    expect(judged.tamper?.findings).toEqual([
      "the cart's click id was removed",
      "the cart's affiliate tag was removed",
    ]);
  });

  it("names the witness of each source as the report and the dashboard do", () => {
    expect(["app_proxy", "pixel", "cart_attributes", "landing_site", null, "other"].map(witnessOf)).toEqual([
      "landing",
      "pixel",
      "cart_attributes",
      "landing_site",
      null,
      null,
    ]);
  });

  it("with nothing named, the reason says where no click id was found, or why the cart's was refused", () => {
    expect(judgeWitnesses(witnesses())).toMatchObject({
      reason: "no click id in Shopify's record of the visit, the storefront's reports or the order's attributes",
    });
    const refused = { clickId: null, refused: "not a click id", tag: null, capturedAt: null, tagHistory: [] };
    expect(judgeWitnesses(witnesses({ cart: refused }))).toMatchObject({ reason: "not a click id" });
  });

  it("the scripts' timeline is one: a pixel landing before the embed's touch is the first click reported", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({ touches: [seen("a1", "t", 5)], pixel: { checkout: [], landings: [seen("p1", "t", 1)] } }),
      ),
    );
    expect(judged.evidence).toMatchObject({ source: "pixel", clickId: "p1", capturedAt: at(1) });
    expect(judged.tamper?.competingClicks).toMatchObject([{ clickId: "a1", witness: "landing" }]);
  });

  it("on the same instant the embed's touch goes before the pixel's landing", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({ touches: [seen("a1", "t", 1)], pixel: { checkout: [], landings: [seen("p1", "t", 1)] } }),
      ),
    );
    expect(judged.evidence).toMatchObject({ source: "app_proxy", clickId: "a1" });
  });

  it("a landing page's click that no script reported, against a script's other click, is worth the journey's read", () => {
    const facts = witnesses({
      shopify: { landingSite: visit("alice-click", "alice-20"), journey: null },
      touches: [seen("attacker-click", "evil-1", 1)],
    });
    expect(judgeWitnesses(facts)).toEqual({ kind: "read-journey" });
  });

  it("lists at most 20 clicks per witness on the order, each once, and the journey's visits that carried one", () => {
    const ids = Array.from({ length: 25 }, (_, i) => `c${i}`);
    const judged = judgeWitnesses(
      witnesses({
        shopify: {
          landingSite: visit("c0", "t"),
          journey: { ready: true, visits: [visit("c0", "t", 0), visit(null, null, 1), visit("c0", "t", 2)] },
        },
        touches: [...ids, "c0"].map((id, i) => seen(id, "t", i)),
        pixel: { checkout: [], landings: ids.map((id, i) => seen(id, "t", i)) },
        unbound: [...ids, ...ids],
      }),
    );
    expect(judged).toMatchObject({ witnesses: { journey: { ready: true, clicks: ["c0"] } } });
    const listed = attributed(judged).witnesses;
    expect(listed.landing).toEqual(ids.slice(0, 20));
    expect(listed.pixel).toEqual(ids.slice(0, 20));
    expect(listed.unbound).toEqual(ids.slice(0, 20));
    // The other clicks stand against the credited one, each once, 20 at most.
    expect(attributed(judged).tamper?.competingClicks?.map((c) => c.clickId)).toEqual(ids.slice(1, 21));
  });

  it("a contest lists at most 20 claims", () => {
    const ids = Array.from({ length: 25 }, (_, i) => `c${i}`);
    const judged = attributed(judgeWitnesses(witnesses({ touches: ids.map((id, i) => seen(id, "t", i)) })));
    expect(judged.contest?.reason).toBe("creators-differ");
    expect(judged.contest?.claims.map((c) => c.clickId)).toEqual(ids.slice(0, 20));
  });

  it("one click whose creator nobody knows, with no landing page recorded, stands uncontested", () => {
    const judged = attributed(judgeWitnesses(witnesses({ touches: [seen("a1", "t", 1)] })));
    expect(judged.evidence.clickId).toBe("a1");
    expect(judged.contest).toBeNull();
  });

  it("each other click stands once against the credited one, and the cart's own click after the reports", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", "t", 1), seen("x1", "t", 2), seen("x1", "t", 3), seen("x2", "t", 4)],
          cart: { clickId: "x3", tag: "t", capturedAt: null, tagHistory: [] },
        }),
      ),
    );
    expect(judged.tamper?.competingClicks).toEqual([
      { clickId: "x1", witness: "landing", firstSeenAt: at(2).toISOString(), why: "later" },
      { clickId: "x2", witness: "landing", firstSeenAt: at(4).toISOString(), why: "later" },
      { clickId: "x3", witness: "cart_attributes", firstSeenAt: null, why: "later" },
    ]);
  });

  it("a report without a tag is kept in the tag's history as an empty tag", () => {
    const judged = attributed(judgeWitnesses(witnesses({ touches: [seen("a1", null, 1), seen("a1", "t", 2)] })));
    expect(judged.evidence.tagHistory).toEqual([
      { tag: "", at: at(1).toISOString() },
      { tag: "t", at: at(2).toISOString() },
    ]);
  });

  it("the cart is held against the embed's touches only: the pixel alone, or a cart agreeing with the touches, finds nothing", () => {
    const pixelOnly = attributed(
      judgeWitnesses(witnesses({ pixel: { checkout: [], landings: [seen("p1", "t", 1)] } })),
    );
    expect(pixelOnly.tamper).toBeNull();
    // The touches carried no tag and the cart none either: nothing was removed.
    const untagged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", null, 1)],
          cart: { clickId: "a1", tag: null, capturedAt: null, tagHistory: [] },
        }),
      ),
    );
    expect(untagged.tamper).toBeNull();
  });

  it("a finding with no other click reported lists no competing clicks", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          touches: [seen("a1", "alice-20", 1)],
          cart: { clickId: "a1", tag: "evil-1", capturedAt: null, tagHistory: [] },
        }),
      ),
    );
    expect(judged.tamper).toEqual({
      cartClickId: "a1",
      cartTag: "evil-1",
      findings: ["the cart names an affiliate tag the storefront never reported for this cart"],
    });
  });
});

describe("judgeWitnesses against any script", () => {
  const clickIds = fc.constantFrom("alice", "bob", "attacker-1", "attacker-2");
  const reports = fc.array(
    fc.record({
      clickId: clickIds,
      tag: fc.option(fc.constantFrom("t1", "t2", "evil"), { nil: null }),
      minute: fc.nat(59),
    }),
    { maxLength: 6 },
  );
  const scripts = fc.record({
    touches: reports,
    landings: reports,
    cart: fc.option(clickIds, { nil: null }),
    unbound: fc.array(clickIds, { maxLength: 3 }),
  });
  type Report = { clickId: string; tag: string | null; minute: number };
  type Scripts = { touches: Report[]; landings: Report[]; cart: string | null; unbound: string[] };
  const toFacts = (s: Scripts, shopify: OrderWitnesses["shopify"]): OrderWitnesses => {
    const sorted = (list: Report[]) =>
      list.map((r) => seen(r.clickId, r.tag, r.minute)).sort((a, b) => +a.seenAt - +b.seenAt);
    return witnesses({
      shopify,
      touches: sorted(s.touches),
      pixel: s.landings.length > 0 ? { checkout: [], landings: sorted(s.landings) } : null,
      cart: { clickId: s.cart, tag: null, capturedAt: null, tagHistory: [] },
      unbound: s.unbound,
      creators: new Map([
        ["alice", "cr_alice"],
        ["bob", "cr_bob"],
        ["attacker-1", "cr_attacker"],
        ["attacker-2", "cr_attacker"],
      ]),
    });
  };

  it("whatever scripts report, the click Shopify recorded is credited, uncontested", () => {
    fc.assert(
      fc.property(scripts, fc.constantFrom("alice", "bob"), (s, recorded) => {
        const shopify = {
          landingSite: visit(recorded, "t1"),
          journey: { ready: true, visits: [visit(recorded, "t1", 0)] },
        };
        const judged = attributed(judgeWitnesses(toFacts(s, shopify)));
        expect(judged.evidence.clickId).toBe(recorded);
        expect(judged.contest).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("on a visit Shopify recorded without a click, scripts never win the credit uncontested", () => {
    fc.assert(
      fc.property(scripts, fc.boolean(), (s, ready) => {
        const shopify = { landingSite: visit(null), journey: { ready, visits: ready ? [visit(null, null, 0)] : [] } };
        const judged = judgeWitnesses(toFacts(s, shopify));
        if (judged.kind === "attributed") expect(judged.contest).not.toBeNull();
        else expect(judged.kind).toBe("unattributed");
      }),
      { numRuns: 300 },
    );
  });

  it("without any landing page recorded, claims of more than one creator are always left to the merchant", () => {
    fc.assert(
      fc.property(scripts, (s) => {
        const facts = toFacts(s, { landingSite: null, journey: null });
        const judged = judgeWitnesses(facts);
        const claimed = new Set([...facts.touches, ...(facts.pixel?.landings ?? [])].map((t) => t.clickId));
        if (facts.cart.clickId) claimed.add(facts.cart.clickId);
        const creators = new Set([...claimed].map((clickId) => facts.creators.get(clickId)));
        if (claimed.size === 0) expect(judged.kind).toBe("unattributed");
        else expect(attributed(judged).contest !== null).toBe(creators.size > 1);
      }),
      { numRuns: 300 },
    );
  });

  it("reports that bind nothing change nothing", () => {
    fc.assert(
      fc.property(scripts, (s) => {
        const shopify = { landingSite: null, journey: null };
        const { witnesses: _with, ...judged } = judgeWitnesses(toFacts(s, shopify)) as Attribution & {
          witnesses?: unknown;
        };
        const { witnesses: _without, ...alone } = judgeWitnesses(
          toFacts({ ...s, unbound: [] }, shopify),
        ) as Attribution & {
          witnesses?: unknown;
        };
        expect(judged).toEqual(alone);
      }),
      { numRuns: 200 },
    );
  });
});

describe("judgeWitnesses: what the app saw first decides (decision 047)", () => {
  const CREATORS = new Map([
    ["alice-click", "cr_alice"],
    ["alice-again", "cr_alice"],
    ["attacker-click", "cr_attacker"],
    ["bob-click", "cr_bob"],
  ]);
  const ready = (...visits: RecordedVisit[]) => ({ ready: true, visits });
  const DAY = 24 * 60;

  it("a visitor swapped at checkout: the record names the attacker's click, seen after alice's; alice keeps the credit, undisputed", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: {
            landingSite: visit("attacker-click", "evil-1"),
            journey: ready(visit("attacker-click", "evil-1", 20)),
          },
          touches: [seen("alice-click", "alice-20", 1), seen("attacker-click", "evil-1", 20)],
          creators: CREATORS,
          orderAt: at(22),
        }),
      ),
    );
    expect(judged.evidence).toMatchObject({ clickId: "alice-click", source: "app_proxy" });
    expect(judged.contest).toBeNull();
    expect(judged.tamper?.findings).toContainEqual(
      expect.stringContaining("names click attacker-click, another creator's"),
    );
  });

  it("the journey is read first when the record names a click other than the first reported", () => {
    expect(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit("attacker-click", "evil-1"), journey: null },
          touches: [seen("alice-click", "alice-20", 1)],
          creators: CREATORS,
        }),
      ),
    ).toEqual({ kind: "read-journey" });
  });

  it("a visitor reset with no click: a visit recorded after alice's click displaces nothing, and is evidence", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit(null), journey: ready(visit(null, null, 20)) },
          touches: [seen("alice-click", "alice-20", 1)],
          creators: CREATORS,
          orderAt: at(22),
        }),
      ),
    );
    expect(judged.evidence.clickId).toBe("alice-click");
    expect(judged.contest).toBeNull();
    expect(judged.tamper?.findings).toContainEqual(expect.stringContaining("visitor changed mid-journey"));
  });

  it("a shopper's own later visit days after the click (an expired cookie) is no evidence", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit(null), journey: ready(visit(null, null, 7 * DAY)) },
          touches: [seen("alice-click", "alice-20", 1)],
          cart: { clickId: "alice-click", tag: "alice-20", capturedAt: at(1), tagHistory: [] },
          creators: CREATORS,
          orderAt: at(7 * DAY + 5),
        }),
      ),
    );
    expect(judged.evidence.clickId).toBe("alice-click");
    expect(judged.tamper).toBeNull();
  });

  it("a click only a script reported in the middle of a visit Shopify recorded without one waits for the merchant", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit(null), journey: ready(visit(null, null, 0)) },
          touches: [seen("attacker-click", "evil-1", 5)],
          creators: CREATORS,
          orderAt: at(8),
        }),
      ),
    );
    expect(judged.contest?.reason).toBe("unrecorded-click");
  });

  it("a click only the cart's attributes name, on a visit Shopify recorded without one, waits for the merchant", () => {
    const facts = witnesses({
      shopify: { landingSite: visit(null), journey: ready(visit(null, null, 0)) },
      cart: { clickId: "attacker-click", tag: "evil-1", capturedAt: at(4), tagHistory: [] },
      creators: CREATORS,
      orderAt: at(8),
    });
    expect(attributed(judgeWitnesses(facts)).contest?.reason).toBe("unrecorded-click");
    // The visit's start not learned in time: the merchant decides all the same.
    const unread = { ...facts, shopify: { landingSite: visit(null), journey: { ready: false, visits: [] } } };
    expect(attributed(judgeWitnesses(unread)).contest?.reason).toBe("journey-not-ready");
  });

  it("a script racing the embed at landing: the visit Shopify recorded with alice's click began first", () => {
    const facts = witnesses({
      shopify: { landingSite: visit("alice-click", "alice-20"), journey: ready(visit("alice-click", "alice-20", 3)) },
      pixel: { checkout: [{ clickId: null, tag: null }], landings: [seen("attacker-click", "evil-1", 3)] },
      // The embed, held back until the script had posted, reports alice's click two seconds later.
      touches: [{ clickId: "alice-click", tag: "alice-20", seenAt: new Date(at(3).getTime() + 2_000) }],
      creators: CREATORS,
      orderAt: at(9),
    });
    const judged = attributed(judgeWitnesses(facts));
    expect(judged.evidence.clickId).toBe("alice-click");
    expect(judged.contest).toBeNull();
    // Without the visit's time the reports of the landing's moment yield to the recorded click.
    const unread = attributed(
      judgeWitnesses({
        ...facts,
        shopify: { landingSite: facts.shopify.landingSite, journey: { ready: false, visits: [] } },
      }),
    );
    expect(unread.evidence.clickId).toBe("alice-click");
  });

  it("a click the service did not know (made up) never leads: the real click reported after ten of them is credited", () => {
    const madeUp = Array.from({ length: 10 }, (_, i) => `made-up-${i}`);
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit(null), journey: ready(visit(null, null, 30)) },
          touches: [...madeUp.map((id) => seen(id, null, 1)), seen("alice-click", "alice-20", 2)],
          creators: CREATORS,
          unknown: new Set(madeUp),
          orderAt: at(35),
        }),
      ),
    );
    expect(judged.evidence.clickId).toBe("alice-click");
    expect(judged.tamper?.findings).toContainEqual(expect.stringContaining("click made-up-0 takes no credit"));
  });

  it("a click first reported a second or more after the order was placed takes no credit", () => {
    const judged = judgeWitnesses(
      witnesses({
        shopify: { landingSite: visit(null), journey: ready(visit(null, null, 0)) },
        pixel: {
          checkout: [{ clickId: "attacker-click", tag: "evil-1" }],
          landings: [seen("attacker-click", "evil-1", 11)],
        },
        creators: CREATORS,
        orderAt: at(10),
      }),
    );
    expect(judged).toMatchObject({
      kind: "unattributed",
      reason: expect.stringContaining("after the order was placed"),
    });
  });

  it("a click only Shopify's record names, while the pixel reported the checkout from that browser and never that landing: unconfirmed", () => {
    const facts = witnesses({
      shopify: { landingSite: visit("attacker-click", "evil-1"), journey: null },
      pixel: { checkout: [{ clickId: null, tag: null }], landings: [] },
      creators: CREATORS,
      orderAt: at(10),
    });
    expect(judgeWitnesses(facts)).toMatchObject({
      kind: "unattributed",
      reason: expect.stringContaining("never reported"),
    });
    // With no pixel in that browser (declined consent), Shopify's record is all there is.
    expect(attributed(judgeWitnesses({ ...facts, pixel: null })).evidence.clickId).toBe("attacker-click");
  });

  it("another creator's click on a cart and visitor that appeared after the same network source brought alice's: held for the merchant", () => {
    const facts = witnesses({
      shopify: {
        landingSite: visit("attacker-click", "evil-1"),
        journey: ready(visit("attacker-click", "evil-1", 20)),
      },
      touches: [seen("attacker-click", "evil-1", 20)],
      creators: CREATORS,
      orderAt: at(22),
      linked: { first: { ...seen("alice-click", "alice-20", 2), witness: "pixel" }, ownSince: at(20) },
    });
    const judged = attributed(judgeWitnesses(facts));
    expect(judged.contest).toMatchObject({
      reason: "identity-changed",
      claims: [
        { clickId: "alice-click", creatorId: "cr_alice", witnesses: ["pixel"] },
        { clickId: "attacker-click", creatorId: "cr_attacker" },
      ],
    });
    // The same creator's link again (a private window, cookies the shopper cleared): undisputed.
    const again = attributed(
      judgeWitnesses({
        ...facts,
        shopify: {
          landingSite: visit("alice-again", "alice-20"),
          journey: ready(visit("alice-again", "alice-20", 20)),
        },
        touches: [seen("alice-again", "alice-20", 20)],
      }),
    );
    expect(again.evidence.clickId).toBe("alice-again");
    expect(again.contest).toBeNull();
  });

  it("a second creator's link days later: the first click, alice's, keeps the credit", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: {
            landingSite: visit("bob-click", "bob-10"),
            journey: ready(visit("alice-click", "alice-20", 0), visit("bob-click", "bob-10", 3 * DAY)),
          },
          touches: [seen("alice-click", "alice-20", 0), seen("bob-click", "bob-10", 3 * DAY)],
          creators: CREATORS,
          orderAt: at(3 * DAY + 5),
        }),
      ),
    );
    expect(judged.evidence.clickId).toBe("alice-click");
    expect(judged.contest).toBeNull();
  });
});

describe("judgeWitnesses: the evidence and the contests of decision 047, at their edges", () => {
  const CREATORS = new Map([
    ["alice-click", "cr_alice"],
    ["alice-again", "cr_alice"],
    ["attacker-click", "cr_attacker"],
  ]);
  const ready = (...visits: RecordedVisit[]) => ({ ready: true, visits });
  const findingsOf = (facts: OrderWitnesses) => attributed(judgeWitnesses(facts)).tamper?.findings ?? [];
  const swapped = (recordedClick: string) =>
    witnesses({
      shopify: { landingSite: visit(recordedClick, "t"), journey: ready(visit(recordedClick, "t", 20)) },
      touches: [seen("alice-click", "alice-20", 1)],
      cart: { clickId: "alice-click", tag: "alice-20", capturedAt: at(1), tagHistory: [] },
      creators: CREATORS,
      orderAt: at(22),
    });

  it("a later visit recorded with the same creator's click is no evidence; with an unknown creator's, it is", () => {
    expect(findingsOf(swapped("alice-again"))).toEqual([]);
    expect(findingsOf(swapped("stranger-click"))).toContainEqual(expect.stringContaining("names click stranger-click"));
    // The credited click's time is when the app saw it, not the later visit's.
    expect(attributed(judgeWitnesses(swapped("attacker-click"))).evidence.capturedAt).toEqual(at(1));
  });

  it("a clickless visit is evidence of a changed visitor up to an hour after the click, and not when it recorded the click", () => {
    const reset = (minute: number) =>
      witnesses({
        shopify: { landingSite: visit(null), journey: ready(visit(null, null, minute)) },
        touches: [seen("alice-click", "alice-20", 0)],
        cart: { clickId: "alice-click", tag: "alice-20", capturedAt: at(0), tagHistory: [] },
        creators: CREATORS,
        orderAt: at(minute + 2),
      });
    expect(findingsOf(reset(60))).toContainEqual(expect.stringContaining("visitor changed mid-journey"));
    expect(findingsOf(reset(61))).toEqual([]);
    // The visit that recorded alice's own click: no change at all.
    const own = witnesses({
      shopify: { landingSite: visit("alice-click", "alice-20"), journey: ready(visit("alice-click", "alice-20", 0)) },
      touches: [seen("alice-click", "alice-20", 0)],
      cart: { clickId: "alice-click", tag: "alice-20", capturedAt: at(0), tagHistory: [] },
      creators: CREATORS,
      orderAt: at(5),
    });
    expect(findingsOf(own)).toEqual([]);
  });

  it("made-up clicks are never among a contest's claims", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: null, journey: null },
          touches: [seen("made-up", null, 0), seen("alice-click", "alice-20", 1), seen("attacker-click", "evil", 2)],
          creators: CREATORS,
          unknown: new Set(["made-up"]),
        }),
      ),
    );
    expect(judged.contest?.claims.map((c) => c.clickId)).toEqual(["alice-click", "attacker-click"]);
    // One real creator besides a made-up click: nothing to contest.
    const alone = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: null, journey: null },
          touches: [seen("made-up", null, 0), seen("alice-click", "alice-20", 1)],
          creators: CREATORS,
          unknown: new Set(["made-up"]),
        }),
      ),
    );
    expect(alone.contest).toBeNull();
  });

  it("the linked journey contests only another click, whose creator differs or is not known", () => {
    const withLinked = (clickId: string, creators = CREATORS) =>
      attributed(
        judgeWitnesses(
          witnesses({
            shopify: { landingSite: null, journey: null },
            touches: [seen("attacker-click", "evil", 20)],
            creators,
            orderAt: at(22),
            linked: { first: { ...seen(clickId, null, 2), witness: "landing" }, ownSince: at(20) },
          }),
        ),
      ).contest?.reason ?? null;
    expect(withLinked("attacker-click")).toBeNull();
    expect(withLinked("unlooked-up")).toBe("identity-changed");
    expect(withLinked("alice-click", new Map([["alice-click", "cr_alice"]]))).toBe("identity-changed");
    expect(withLinked("alice-click")).toBe("identity-changed");
  });

  it("the journey's visit times unknown: a recorded click the scripts saw later settles it, one they never saw does not", () => {
    const facts = (touches: LandingTouchFact[]) =>
      witnesses({
        shopify: { landingSite: visit("attacker-click", "evil"), journey: { ready: false, visits: [] } },
        touches,
        creators: CREATORS,
        orderAt: at(30),
      });
    const seenLater = attributed(
      judgeWitnesses(facts([seen("alice-click", "a", 1), seen("attacker-click", "evil", 20)])),
    );
    expect([seenLater.evidence.clickId, seenLater.contest]).toEqual(["alice-click", null]);
    const neverSeen = attributed(judgeWitnesses(facts([seen("alice-click", "a", 1)])));
    expect(neverSeen.contest?.reason).toBe("journey-not-ready");
  });

  it("a visit whose recorded click the service did not know counts as one without a click", () => {
    const judged = attributed(
      judgeWitnesses(
        witnesses({
          shopify: { landingSite: visit("made-up"), journey: ready(visit("made-up", null, 0)) },
          touches: [seen("attacker-click", "evil", 5)],
          creators: CREATORS,
          unknown: new Set(["made-up"]),
          orderAt: at(8),
        }),
      ),
    );
    expect(judged.contest?.reason).toBe("unrecorded-click");
  });
});

describe("judgeWitnesses: a shopper who declined tracking (decision 049)", () => {
  const CREATORS = new Map([
    ["alice-click", "cr_alice"],
    ["alice-again", "cr_alice"],
    ["attacker-click", "cr_attacker"],
  ]);
  const ready = (...visits: RecordedVisit[]) => ({ ready: true, visits });
  // The embed reported alice's click arriving (no cart, no visitor) at minute 2 from the order's
  // network source; nothing of the order's own journey was ever reported.
  const declined = (record: string, visitMinute: number | null, linkedClick = "alice-click") =>
    witnesses({
      shopify: {
        landingSite: visit(record, "tag"),
        journey: visitMinute === null ? null : ready(visit(record, "tag", visitMinute)),
      },
      creators: CREATORS,
      orderAt: at(30),
      linked: { first: { ...seen(linkedClick, "alice-20", 2), witness: "landing" }, ownSince: null },
    });

  it("a visit Shopify recorded after the source brought alice's click, naming another creator's: nobody's, and the reason says why", () => {
    // When the recorded visit began is what decides: Shopify's journey is read first.
    expect(judgeWitnesses(declined("attacker-click", null))).toEqual({ kind: "read-journey" });
    const judged = judgeWitnesses(declined("attacker-click", 28));
    expect(judged).toMatchObject({
      kind: "unattributed",
      reason: expect.stringContaining("began after the same network source"),
    });
    expect(judged.kind === "unattributed" && judged.reason).toContain("alice-click");
  });

  it("the recorded click stands where it came first, is the linked click itself, or is the same creator's", () => {
    // Begun within the clocks' skew of alice's arrival: not after it.
    expect(attributed(judgeWitnesses(declined("attacker-click", 2))).evidence.clickId).toBe("attacker-click");
    expect(attributed(judgeWitnesses(declined("alice-click", 2))).evidence.clickId).toBe("alice-click");
    expect(attributed(judgeWitnesses(declined("alice-again", 28))).evidence.clickId).toBe("alice-again");
  });

  it("a linked click the service did not know changes nothing: no refusal, no contest", () => {
    const facts = { ...declined("attacker-click", 28, "made-up"), unknown: new Set(["made-up"]) };
    const judged = attributed(judgeWitnesses(facts));
    expect([judged.evidence.clickId, judged.contest]).toEqual(["attacker-click", null]);
  });

  it("a journey Shopify has not attributed yet: the merchant decides, with alice's click among the claims", () => {
    const facts = {
      ...declined("attacker-click", null),
      shopify: { landingSite: visit("attacker-click", "tag"), journey: { ready: false, visits: [] } },
    };
    const judged = attributed(judgeWitnesses(facts));
    expect(judged.contest?.reason).toBe("identity-changed");
    expect(judged.contest?.claims.map((c) => c.clickId)).toEqual(["alice-click", "attacker-click"]);
  });
});
