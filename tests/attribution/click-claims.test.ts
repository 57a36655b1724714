import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import {
  cartClaim,
  landingSiteClickId,
  MAX_CLICK_ID_LENGTH,
  MAX_TAG_LENGTH,
  parseTagHistory,
  recordedVisit,
} from "../../app/attribution/click-claims";

const attrs = (values: Record<string, string>) => Object.entries(values).map(([name, value]) => ({ name, value }));

describe("cartClaim", () => {
  it("reads the click, the tag, the time and the tags the storefront wrote", () => {
    expect(
      cartClaim(
        attrs({
          [CART_ATTRIBUTES.clickId]: "clk_1",
          [CART_ATTRIBUTES.arrivedTag]: "honey-77",
          [CART_ATTRIBUTES.capturedAt]: "2026-11-21T10:00:00.000Z",
          [CART_ATTRIBUTES.tagHistory]: '[["alice-20","2026-11-21T10:00:00Z"],["honey-77","2026-11-21T10:05:00Z"]]',
        }),
      ),
    ).toEqual({
      clickId: "clk_1",
      tag: "honey-77",
      capturedAt: new Date("2026-11-21T10:00:00.000Z"),
      tagHistory: [
        { tag: "alice-20", at: "2026-11-21T10:00:00Z" },
        { tag: "honey-77", at: "2026-11-21T10:05:00Z" },
      ],
    });
  });

  it("reads a click without a tag as a null tag, and an id longer than any click id as no click", () => {
    expect(cartClaim(attrs({ _lb_click: "clk_3" }))).toMatchObject({ clickId: "clk_3", tag: null });
    expect(cartClaim(attrs({ _lb_click: "c".repeat(MAX_CLICK_ID_LENGTH) })).clickId).toBe(
      "c".repeat(MAX_CLICK_ID_LENGTH),
    );
    expect(cartClaim(attrs({ _lb_click: "c".repeat(MAX_CLICK_ID_LENGTH + 1), _lb_tag: "t" }))).toMatchObject({
      clickId: null,
      tag: "t",
      capturedAt: null,
      tagHistory: [],
    });
  });
});

describe("recordedVisit", () => {
  it("reads the landing page's click and the first of the merchant's tag parameters it carries", () => {
    expect(recordedVisit("/products/a?ref=zz&lb_click=clk_2&aff=bob", ["tag", "aff", "ref"])).toEqual({
      clickId: "clk_2",
      tag: "bob",
      at: null,
    });
  });

  it("reads a repeated parameter as the storefront does: its last value that is not empty", () => {
    expect(recordedVisit("/?lb_click=clk_4&lb_click=&tag=alice-20&tag=", ["tag"])).toMatchObject({
      clickId: "clk_4",
      tag: "alice-20",
    });
  });

  it("tells a page without a click (a visit Shopify recorded) from no page at all", () => {
    expect(recordedVisit("/?tag=alice", ["tag"])).toEqual({ clickId: null, tag: null, at: null });
    expect(recordedVisit(null, ["tag"])).toBeNull();
    expect(recordedVisit("", ["tag"])).toBeNull();
    expect(landingSiteClickId("https://shop.example/?lb_click=c9")).toBe("c9");
  });

  it("takes a click id of exactly MAX_CLICK_ID_LENGTH characters, and cuts the tag that came with it", () => {
    const clickId = "c".repeat(MAX_CLICK_ID_LENGTH);
    expect(recordedVisit(`/?lb_click=${clickId}&tag=${"t".repeat(MAX_TAG_LENGTH + 1)}`, ["tag"])).toEqual({
      clickId,
      tag: "t".repeat(MAX_TAG_LENGTH),
      at: null,
    });
    expect(recordedVisit(`/?lb_click=${clickId}c&tag=x`, ["tag"])).toEqual({ clickId: null, tag: null, at: null });
  });

  it("reads exactly what a plain reading of the order gives, whatever the input", () => {
    // Values around the edges the readers care about: blank, padded, at and past the length limit.
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom("", "  ", " clk_pad ", "c".repeat(MAX_CLICK_ID_LENGTH), "c".repeat(MAX_CLICK_ID_LENGTH + 1)),
      fc.string({ minLength: MAX_TAG_LENGTH - 2, maxLength: MAX_TAG_LENGTH + 3 }),
    );
    const attribute = fc.record({ name: fc.constantFrom(...Object.values(CART_ATTRIBUTES), "x"), value });
    const param = fc.tuple(fc.constantFrom(CLICK_ID_PARAM, "tag", "ref", "x"), value);
    const landingSite = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.array(param, { maxLength: 5 }).map((params) => `/products/a?${new URLSearchParams(params).toString()}`),
    );
    const tagParams = ["tag", "ref"];
    fc.assert(
      fc.property(fc.array(attribute, { maxLength: 6 }), landingSite, (cartAttributes, landing) => {
        const expected = readByHand(cartAttributes, landing, tagParams);
        expect(cartClaim(cartAttributes)).toMatchObject(expected.cart);
        expect(recordedVisit(landing, tagParams)).toEqual(expected.landing);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseTagHistory", () => {
  it("keeps only [tag, time] pairs whose tag is text, and reads a missing or non-text time as empty", () => {
    const history = JSON.stringify([
      ["alice-20", "2026-11-21T10:00:00Z"],
      "ab", // a string is iterable: read as a pair it would give tag "a", time "b"
      [7, "2026-11-21T10:01:00Z"],
      { tag: "x" },
      null,
      ["bob-1"],
      ["carol-3", 1700000000],
    ]);
    expect(parseTagHistory(history)).toEqual([
      { tag: "alice-20", at: "2026-11-21T10:00:00Z" },
      { tag: "bob-1", at: "" },
      { tag: "carol-3", at: "" },
    ]);
  });

  it("keeps the last ten entries, oldest first", () => {
    const entries = Array.from({ length: 12 }, (_, i) => [`t${i}`, `2026-11-21T10:${String(i).padStart(2, "0")}:00Z`]);
    const parsed = parseTagHistory(JSON.stringify(entries));
    expect(parsed.map((entry) => entry.tag)).toEqual(["t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11"]);
    expect(parsed[0]).toEqual({ tag: "t2", at: "2026-11-21T10:02:00Z" });
  });

  it("cuts a tag to MAX_TAG_LENGTH and a time to 40 characters", () => {
    const tag = "t".repeat(MAX_TAG_LENGTH + 5);
    const at = `2026-11-21T10:00:00.000000000000000000Z${"9".repeat(10)}`;
    expect(parseTagHistory(JSON.stringify([[tag, at]]))).toEqual([
      { tag: "t".repeat(MAX_TAG_LENGTH), at: at.slice(0, 40) },
    ]);
  });

  it("reads anything but a JSON array as no history", () => {
    expect(parseTagHistory(null)).toEqual([]);
    expect(parseTagHistory("")).toEqual([]);
    expect(parseTagHistory("{not json")).toEqual([]);
    expect(parseTagHistory('{"0":["a","b"]}')).toEqual([]);
    expect(parseTagHistory('"a"')).toEqual([]);
  });
});

/**
 * The rule written out naively: the cart's last attribute of each name, trimmed; the landing
 * page's last lb_click with the first of the merchant's tag parameters that has a value; ids
 * past the limit are not click ids; tags are cut at MAX_TAG_LENGTH.
 */
function readByHand(
  cartAttributes: { name: string; value: string }[],
  landingSite: string | null,
  tagParams: string[],
): {
  cart: { clickId: string | null; tag: string | null };
  landing: { clickId: string | null; tag: string | null; at: null } | null;
} {
  const lastAttribute = (name: string) =>
    cartAttributes
      .filter((a) => a.name === name)
      .at(-1)
      ?.value.trim() || null;
  const cut = (tag: string | null) => (tag === null ? null : tag.slice(0, MAX_TAG_LENGTH));
  const clickIdOf = (id: string | null) => (id !== null && id.length <= MAX_CLICK_ID_LENGTH ? id : null);
  const cart = {
    clickId: clickIdOf(lastAttribute(CART_ATTRIBUTES.clickId)),
    tag: cut(lastAttribute(CART_ATTRIBUTES.arrivedTag)),
  };
  if (!landingSite) return { cart, landing: null };
  let query: URLSearchParams | null = null;
  try {
    query = new URL(landingSite, "https://example.invalid").searchParams;
  } catch {
    query = null;
  }
  // The last value that says something, as the storefront reads the URL.
  const lastParam = (name: string) =>
    query
      ?.getAll(name)
      .map((v) => v.trim())
      .filter(Boolean)
      .at(-1) ?? null;
  const clickId = clickIdOf(lastParam(CLICK_ID_PARAM));
  const tag = clickId ? (tagParams.map(lastParam).find((t) => t !== null) ?? null) : null;
  return { cart, landing: { clickId, tag: cut(tag), at: null } };
}
