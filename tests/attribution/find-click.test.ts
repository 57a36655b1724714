import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CART_ATTRIBUTES } from "../../app/attribution/cart-attributes";
import { findClick, MAX_CLICK_ID_LENGTH } from "../../app/attribution/find-click";

const attrs = (values: Record<string, string>) => Object.entries(values).map(([name, value]) => ({ name, value }));

describe("findClick", () => {
  it("prefers the cart attributes the storefront wrote", () => {
    const result = findClick(
      {
        cartAttributes: attrs({
          [CART_ATTRIBUTES.clickId]: "clk_1",
          [CART_ATTRIBUTES.arrivedTag]: "honey-77",
          [CART_ATTRIBUTES.capturedAt]: "2026-11-21T10:00:00.000Z",
          [CART_ATTRIBUTES.tagHistory]: '[["alice-20","2026-11-21T10:00:00Z"],["honey-77","2026-11-21T10:05:00Z"]]',
        }),
        landingSite: "/?lb_click=other&tag=x",
      },
      ["tag"],
    );
    expect(result).toEqual({
      found: true,
      evidence: {
        source: "cart_attributes",
        clickId: "clk_1",
        arrivedTag: "honey-77",
        capturedAt: new Date("2026-11-21T10:00:00.000Z"),
        tagHistory: [
          { tag: "alice-20", at: "2026-11-21T10:00:00Z" },
          { tag: "honey-77", at: "2026-11-21T10:05:00Z" },
        ],
      },
    });
  });

  it("falls back to the landing URL, using the merchant's tag parameters in order", () => {
    const result = findClick({ cartAttributes: [], landingSite: "/products/a?ref=zz&lb_click=clk_2&aff=bob" }, [
      "tag",
      "aff",
      "ref",
    ]);
    expect(result).toMatchObject({
      found: true,
      evidence: { source: "landing_site", clickId: "clk_2", arrivedTag: "bob", capturedAt: null },
    });
  });

  it("reports a click without a tag as a null tag, and no click as unattributed", () => {
    expect(findClick({ cartAttributes: attrs({ _lb_click: "clk_3" }), landingSite: null }, ["tag"])).toMatchObject({
      found: true,
      evidence: { arrivedTag: null },
    });
    expect(
      findClick({ cartAttributes: attrs({ _lb_tag: "alice" }), landingSite: "/?tag=alice" }, ["tag"]),
    ).toMatchObject({ found: false });
  });

  it("refuses over-long click ids and survives garbage in every field", () => {
    expect(
      findClick({ cartAttributes: attrs({ _lb_click: "c".repeat(MAX_CLICK_ID_LENGTH + 1) }), landingSite: null }, [
        "tag",
      ]).found,
    ).toBe(false);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.constantFrom("_lb_click", "_lb_tag", "_lb_click_at", "_lb_tags", "x"),
            value: fc.string(),
          }),
        ),
        fc.option(fc.string()),
        (cartAttributes, landingSite) => {
          const result = findClick({ cartAttributes, landingSite }, ["tag"]);
          if (result.found) expect(result.evidence.clickId.length).toBeLessThanOrEqual(MAX_CLICK_ID_LENGTH);
        },
      ),
    );
  });
});
