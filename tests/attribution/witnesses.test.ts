import { describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import type { ClickSearch } from "../../app/attribution/find-click";
import { judgeWitnesses, witnessOf } from "../../app/attribution/witnesses";

// The attribution policy of decision 030, on its own: which witness's click keeps the credit.

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 12, minute));
const none: ClickSearch = { found: false, reason: "no click id in the order's attributes or landing page" };
const cart = (clickId: string | null, tag: string | null) => [
  ...(clickId ? [{ name: CART_ATTRIBUTES.clickId, value: clickId }] : []),
  ...(tag ? [{ name: CART_ATTRIBUTES.arrivedTag, value: tag }] : []),
];
const fromCart = (clickId: string, tag: string): ClickSearch => ({
  found: true,
  evidence: { source: "cart_attributes", clickId, arrivedTag: tag, capturedAt: null, tagHistory: [] },
});

describe("judgeWitnesses", () => {
  it("no server record: what the order carries decides, nothing is held against it", () => {
    const judged = judgeWitnesses(fromCart("A", "a-1"), cart("A", "a-1"), null, [], null);
    expect(judged).toMatchObject({ found: true, evidence: { source: "cart_attributes", clickId: "A" }, tamper: null });
    expect(judgeWitnesses(none, [], null, [], null)).toMatchObject({ found: false });
  });

  it("touches and pixel landings are one timeline: the click seen first keeps the credit, whoever saw it", () => {
    const judged = judgeWitnesses(
      fromCart("B", "b-1"),
      cart("B", "b-1"),
      null,
      [{ clickId: "B", tag: "b-1", seenAt: at(5) }],
      {
        checkout: [],
        landings: [
          { clickId: "A", tag: "a-1", seenAt: at(1) },
          { clickId: "B", tag: "b-1", seenAt: at(5) },
        ],
      },
    );
    expect(judged).toMatchObject({ found: true, evidence: { source: "pixel", clickId: "A", arrivedTag: "a-1" } });
    if (!judged.found) throw new Error("found");
    expect(judged.tamper?.competingClicks).toEqual([
      { clickId: "B", witness: "landing", firstSeenAt: at(5).toISOString(), why: "later" },
    ]);
  });

  it("the same click seen by both at once is the landing touch's; its tag is the latest either saw", () => {
    const judged = judgeWitnesses(none, cart("A", "honey"), null, [{ clickId: "A", tag: "a-1", seenAt: at(1) }], {
      checkout: [],
      landings: [
        { clickId: "A", tag: "a-1", seenAt: at(1) },
        { clickId: "A", tag: "honey", seenAt: at(9) },
      ],
    });
    expect(judged).toMatchObject({
      found: true,
      evidence: { source: "app_proxy", clickId: "A", arrivedTag: "honey" },
      tamper: null,
    });
  });

  it("with the pixel watching pages, a click only a touch named takes no credit, unless the landing page carried it", () => {
    const touches = [{ clickId: "B", tag: "b-1", seenAt: at(1) }];
    const pixel = { checkout: [], landings: [{ clickId: "A", tag: "a-1", seenAt: at(3) }] };
    expect(judgeWitnesses(none, cart("B", "b-1"), null, touches, pixel)).toMatchObject({
      evidence: { clickId: "A", source: "pixel" },
      tamper: { competingClicks: [{ clickId: "B", why: "no-page" }] },
    });
    expect(judgeWitnesses(none, cart("B", "b-1"), "B", touches, pixel)).toMatchObject({
      evidence: { clickId: "B", source: "app_proxy" },
      tamper: { competingClicks: [{ clickId: "A", why: "later" }] },
    });
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
});
