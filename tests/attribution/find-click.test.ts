import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "../../app/attribution/cart-attributes";
import { findClick, MAX_CLICK_ID_LENGTH, MAX_TAG_LENGTH, parseTagHistory } from "../../app/attribution/find-click";

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

  it("reads a repeated landing parameter as the storefront does: its last value that is not empty", () => {
    expect(
      findClick({ cartAttributes: [], landingSite: "/?lb_click=clk_4&lb_click=&tag=alice-20&tag=" }, ["tag"]),
    ).toMatchObject({ found: true, evidence: { clickId: "clk_4", arrivedTag: "alice-20" } });
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

  it("accepts a click id of exactly MAX_CLICK_ID_LENGTH characters, and cuts the tag that came with it", () => {
    const clickId = "c".repeat(MAX_CLICK_ID_LENGTH);
    const search = findClick(
      { cartAttributes: [], landingSite: `/?lb_click=${clickId}&tag=${"t".repeat(MAX_TAG_LENGTH + 1)}` },
      ["tag"],
    );
    expect(search).toEqual({
      found: true,
      evidence: {
        source: "landing_site",
        clickId,
        arrivedTag: "t".repeat(MAX_TAG_LENGTH),
        capturedAt: null,
        tagHistory: [],
      },
    });
  });

  it("refuses over-long click ids", () => {
    const search = findClick(
      { cartAttributes: attrs({ _lb_click: "c".repeat(MAX_CLICK_ID_LENGTH + 1) }), landingSite: null },
      ["tag"],
    );
    expect(search).toEqual({
      found: false,
      reason: `the click id is ${MAX_CLICK_ID_LENGTH + 1} characters long, not a click id`,
    });
  });

  it("finds exactly the click and tag a plain reading of the order gives, whatever the input", () => {
    // Values around the edges findClick cares about: blank, padded, at and past the length limit.
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom("", "  ", " clk_pad ", "c".repeat(MAX_CLICK_ID_LENGTH), "c".repeat(MAX_CLICK_ID_LENGTH + 1)),
      fc.string({ minLength: MAX_TAG_LENGTH - 2, maxLength: MAX_TAG_LENGTH + 3 }),
    );
    const attribute = fc.record({
      name: fc.constantFrom(...Object.values(CART_ATTRIBUTES), "x"),
      value,
    });
    const param = fc.tuple(fc.constantFrom(CLICK_ID_PARAM, "tag", "ref", "x"), value);
    const landingSite = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.array(param, { maxLength: 5 }).map((params) => `/products/a?${new URLSearchParams(params).toString()}`),
    );
    const tagParams = ["tag", "ref"];
    const seen = { cart: 0, landing: 0, none: 0, tooLong: 0 };

    fc.assert(
      fc.property(fc.array(attribute, { maxLength: 6 }), landingSite, (cartAttributes, landing) => {
        const result = findClick({ cartAttributes, landingSite: landing }, tagParams);
        const expected = readByHand(cartAttributes, landing, tagParams);
        seen[expected.kind] += 1;
        if (expected.kind === "none") {
          expect(result).toEqual({ found: false, reason: "no click id in the order's attributes or landing page" });
        } else if (expected.kind === "tooLong") {
          expect(result).toMatchObject({ found: false, reason: expect.stringMatching(/not a click id$/) });
        } else {
          expect(result).toMatchObject({
            found: true,
            evidence: {
              source: expected.kind === "cart" ? "cart_attributes" : "landing_site",
              clickId: expected.clickId,
              arrivedTag: expected.arrivedTag,
            },
          });
        }
      }),
      { numRuns: 500 },
    );
    // Every branch was exercised, or the property proved less than it claims.
    for (const [kind, runs] of Object.entries(seen)) expect(runs, kind).toBeGreaterThan(10);
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

type HandReading =
  | { kind: "cart"; clickId: string; arrivedTag: string | null }
  | { kind: "landing"; clickId: string; arrivedTag: string | null }
  | { kind: "none" }
  | { kind: "tooLong" };

/**
 * The rule as the README states it, written out naively: the cart's click id (the last attribute
 * of that name, trimmed) wins, else the landing page's last lb_click with the first of the
 * merchant's tag parameters that has a value; ids past the limit are not click ids.
 */
function readByHand(
  cartAttributes: { name: string; value: string }[],
  landingSite: string | null,
  tagParams: string[],
): HandReading {
  const lastAttribute = (name: string) =>
    cartAttributes
      .filter((a) => a.name === name)
      .at(-1)
      ?.value.trim() || null;
  const cut = (tag: string | null) => (tag === null ? null : tag.slice(0, MAX_TAG_LENGTH));
  const judged = (kind: "cart" | "landing", clickId: string, arrivedTag: string | null): HandReading =>
    clickId.length > MAX_CLICK_ID_LENGTH ? { kind: "tooLong" } : { kind, clickId, arrivedTag: cut(arrivedTag) };

  const cartClick = lastAttribute(CART_ATTRIBUTES.clickId);
  if (cartClick) return judged("cart", cartClick, lastAttribute(CART_ATTRIBUTES.arrivedTag));

  let query: URLSearchParams | null = null;
  if (landingSite) {
    try {
      query = new URL(landingSite, "https://example.invalid").searchParams;
    } catch {
      query = null;
    }
  }
  // The last value that says something, as the storefront reads the URL.
  const lastParam = (name: string) =>
    query
      ?.getAll(name)
      .map((value) => value.trim())
      .filter(Boolean)
      .at(-1) ?? null;
  const landingClick = lastParam(CLICK_ID_PARAM);
  if (!landingClick) return { kind: "none" };
  const tag = tagParams.map(lastParam).find((found) => found !== null) ?? null;
  return judged("landing", landingClick, tag);
}
