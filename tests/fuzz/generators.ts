import fc from "fast-check";

// Hostile input for the fuzz suites: what a broken integration, a careless script on the
// storefront or an attacker with the app's secret in hand could put in front of the app.

/** Strings a database, a URL parser or a JSON writer may trip over. */
export const HOSTILE_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "𝕏🦄",
  "e\u0301",
  "\u202Eevil",
  "\r\n\t",
  '\'; DROP TABLE "Verification"; --',
  "__proto__",
  "constructor",
  "<script>alert(1)</script>",
  "%00%ff%",
  "null",
  "NaN",
  "-0",
  "1e309",
  "9".repeat(400),
];

export const hostileText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 2_000, maxLength: 5_000 }) },
  { weight: 1, arbitrary: fc.nat({ max: 300_000 }).map((n) => "x".repeat(n)) },
);

/** Any JSON value, hostile strings among them. */
export const anyJson = fc.oneof(
  hostileText,
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1 + 0.2),
);

/** Order amounts: fine, absurd, negative, not numbers at all. */
export const amount = fc.oneof(
  fc.nat({ max: 10_000_000 }).map((cents) => (cents / 100).toFixed(2)),
  fc.constantFrom(
    "-1.00",
    "-0.01",
    "-0",
    "0",
    "0.000001",
    "1e3",
    "1,000.00",
    " 5.00",
    "1000000000000.01",
    "9".repeat(40),
  ),
  fc.double({ noNaN: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  anyJson,
);

const OUR_PARAMS = ["lb_click", "tag"];

/** landing_site values: real-looking URLs and paths, odd ones, and hostile text. */
export const landingSite = (clickId: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc
      .tuple(
        clickId,
        fc.oneof(fc.string(), hostileText),
        fc.array(fc.tuple(fc.constantFrom(...OUR_PARAMS, "x"), fc.string()), { maxLength: 4 }),
      )
      .map(([click, tag, extra]) => {
        const query = new URLSearchParams([["lb_click", click], ["tag", tag], ...extra]);
        return `/products/a?${query.toString()}`;
      }),
    fc.constantFrom(
      "/",
      "?lb_click=",
      "/?lb_click=a&lb_click=b&tag=&tag=x",
      "//evil.example/?lb_click=1",
      "javascript:alert(1)?lb_click=x",
      "http://[::1/?lb_click=x",
      "/%E0%A4%A?lb_click=%ZZ",
      "/?lb_click=%00&tag=%00",
      "data:text/html,<b>?lb_click=x",
      `/?lb_click=${"c".repeat(5_000)}`,
      `/?tag=${"t".repeat(5_000)}&lb_click=x`,
    ),
    hostileText,
    anyJson,
  );

/** Times: Shopify's, JavaScript's extremes, and text that is no time at all. */
export const time = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom(
    "-271821-04-20T00:00:00.000Z",
    "+275760-09-13T00:00:00.000Z",
    "0000-01-01T00:00:00Z",
    "1970-01-01T00:00:00+14:00",
    "2026-02-30T25:61:00Z",
    "1",
    "2026",
    "tomorrow",
  ),
  anyJson,
);
