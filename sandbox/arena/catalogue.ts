// The arena's catalogue: every attack and every honest journey, one entry each, as data. An
// entry says what the shopper does (the journey, played for real in Chromium), how the shop and
// the browser are set up, and what the attacker does: the built-in attacker extension's action
// (tests/fixtures/attacker-extension, told in arena-config.json's "strategy"), posts from outside
// the page, or both. Every journey's rightful creator is alice (cr_alice) unless it expects
// nobody (an organic order). What an entry is made of: entry.ts.

import type { Entry, Role, Step } from "./entry";

export const RIGHTFUL_CREATOR = "cr_alice";
export const ATTACKER_CREATOR = "cr_attacker";

/** The creators whose tracked links a shopper follows (the click service's link flow). */
export const CREATORS = {
  alice: { creatorId: RIGHTFUL_CREATOR, tag: "alice-20" },
  bob: { creatorId: "cr_bob", tag: "bob-10" },
} as const satisfies Record<Role, { creatorId: string; tag: string }>;
/** The built-in attacker's account at the click service: what arena-config.json tells it to claim for. */
export const ATTACKER = { creatorId: ATTACKER_CREATOR, tag: "coupons-99" } as const;

const ALICE: Step[] = [{ do: "link", creator: "alice" }, { do: "add-to-cart" }, { do: "checkout" }];
const ORGANIC: Step[] = [{ do: "visit", path: "/" }, { do: "add-to-cart" }, { do: "checkout" }];
const attack = (entry: Omit<Entry, "kind" | "expected" | "journey"> & Partial<Entry>): Entry => ({
  kind: "attack",
  expected: "rightful",
  journey: ALICE,
  ...entry,
});

export const CATALOGUE: readonly Entry[] = [
  attack({
    name: "rewrite-cart",
    attacker: "rewrite-cart",
    description: "rewrites the cart attributes to a fresh click of its own on the cart page, before checkout",
  }),
  attack({
    name: "affiliate-redirect",
    attacker: "affiliate-redirect",
    description: "sends the shopper through its own affiliate link (the click service's link flow) mid-session",
  }),
  attack({
    name: "own-touch",
    attacker: "own-touch",
    description: "posts a touch of its own click with the shopper's cart token, read from the cart cookie",
  }),
  attack({
    name: "race-embed",
    attacker: "race-embed",
    description: "holds the embed back at landing, creates the cart and posts its own touch first",
  }),
  attack({
    name: "strip-click",
    attacker: "strip-click",
    description: "strips lb_click and the tag from the landing URL before the embed and the pixel read it",
  }),
  attack({
    name: "swap-tag",
    attacker: "swap-tag",
    description: "keeps lb_click and replaces the tag in the landing URL before the embed and the pixel read it",
  }),
  attack({
    name: "replay-expired",
    attacker: "replay-expired",
    description: "replays an old click of its own (expired at the service) into the cart and a touch",
  }),
  attack({
    name: "click-pool",
    attacker: "click-pool",
    description: "posts a pool of fresh clicks made before the shopper landed, as touches and pixel landings",
  }),
  attack({
    name: "forge-pixel-own",
    attacker: "forge-pixel-own",
    description: "posts a pixel landing and a checkout naming the order from a visitor id of its own, no token",
  }),
  attack({
    name: "forge-pixel-own-token",
    attacker: "forge-pixel-own-token",
    description: "the same with the real checkout token, read from the thank-you page's URL",
  }),
  attack({
    name: "forge-pixel-shopper",
    attacker: "forge-pixel-shopper",
    description: "posts a pixel landing and a checkout naming the order from the shopper's visitor id, no token",
  }),
  attack({
    name: "forge-pixel-shopper-token",
    attacker: "forge-pixel-shopper-token",
    description: "the same with the real checkout token",
  }),
  attack({
    name: "outside-pixel-own",
    outside: "forge-pixel-own",
    description:
      "from outside the page (node, through the app proxy): landing and checkout from its own visitor, no token",
  }),
  attack({
    name: "outside-pixel-own-token",
    outside: "forge-pixel-own-token",
    description: "from outside the page: landing and checkout from its own visitor with the real checkout token",
  }),
  attack({
    name: "late-report",
    attacker: "late-report",
    revisit: true,
    description: "after the order was judged, posts a landing and a checkout (with the token) naming it",
  }),
  attack({
    name: "late-report-organic",
    attacker: "late-report",
    revisit: true,
    expected: "nobody",
    journey: ORGANIC,
    description: "the same on an organic order",
  }),
  attack({
    name: "late-report-organic-pixel-blocked",
    attacker: "block-pixel-late-report",
    revisit: true,
    expected: "nobody",
    journey: ORGANIC,
    description: "keeps the shop's pixel from running, then reports late (with the token) on an organic order",
  }),
  attack({
    name: "leaked-code",
    attacker: "leaked-code",
    description: "applies a leaked discount code (a discount link) before checkout: the order carries the code",
  }),
  attack({
    name: "race-pixel",
    attacker: "race-pixel",
    description:
      "holds the pixel back at landing and posts a landing of its own click under the shopper's visitor id first",
  }),
  attack({
    name: "rewrite-landing-request",
    attacker: "rewrite-landing-request",
    knownException: "docs/attribution.md: a rewrite before Shopify sees the first page",
    description:
      "rewrites the landing request before it leaves the browser (declarativeNetRequest): the shop sees its click",
  }),
  attack({
    name: "visitor-swap",
    attacker: "visitor-swap",
    description:
      "on the cart page writes a fresh visitor cookie and makes one page view under it at its own click's link (a hidden request)",
  }),
  attack({
    name: "visitor-swap-organic",
    attacker: "visitor-swap",
    expected: "nobody",
    journey: ORGANIC,
    description: "the same on an organic order: Shopify's record of the order's visit then names only its click",
  }),
  attack({
    name: "visitor-swap-consent-denied",
    attacker: "visitor-swap",
    consentDenied: true,
    description:
      "the visitor swap on a shopper who declined tracking: the embed reported only alice's click arriving, without a cart, so the order is nobody's (its own journey was never reported, and the source's link credits nothing)",
  }),
  attack({
    name: "new-visit-own-link",
    attacker: "new-visit-own-link",
    description:
      "on the cart page deletes the visitor cookie and navigates through its own tracked link back to the cart",
  }),
  attack({
    name: "visitor-reset",
    attacker: "visitor-reset",
    description: "on the cart page writes a fresh visitor cookie and makes a plain page view under it: no click at all",
  }),
  attack({
    name: "burying",
    attacker: "burying",
    description:
      "at landing posts 10 touches with made-up click ids on the shopper's cart and 10 pixel landings under the shopper's visitor id",
  }),
  attack({
    name: "main-world-wrap",
    attacker: "main-world-wrap",
    description:
      "a MAIN-world script at document_start wraps fetch, so the embed's cart writes and touches name its click",
  }),
  attack({
    name: "cart-replace",
    attacker: "cart-replace",
    description:
      "on the cart page reads the shopper's cart (cart.js), drops the cart cookie, adds the same lines to a new cart (add.js) and posts its own click's touch on it",
  }),
  attack({
    name: "reset-and-replace",
    attacker: "reset-and-replace",
    description:
      "a fresh visitor (one page view at its own link) and a new cart with the shopper's lines (cart.js, add.js) and its own touch: nothing of the shopper's is left",
  }),
  attack({
    name: "own-touch-organic",
    attacker: "own-touch",
    expected: "nobody",
    journey: ORGANIC,
    description: "posts a touch of its own click with the shopper's cart token on an organic order",
  }),
  attack({
    name: "forge-pixel-organic",
    attacker: "forge-pixel-own-token",
    expected: "nobody",
    journey: ORGANIC,
    description: "posts a landing and a checkout with the real token from its own visitor on an organic order",
  }),
  {
    name: "alice",
    kind: "honest",
    expected: "rightful",
    journey: ALICE,
    description: "follows alice's link, adds to cart, checks out",
  },
  {
    name: "two-creators",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "later", minutes: 5 },
      { do: "link", creator: "bob" },
      { do: "add-to-cart" },
      { do: "checkout" },
    ],
    description: "alice's link, then bob's in the same visit: the first click is alice's",
  },
  {
    name: "returning-visitor",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "later", minutes: 3 * 24 * 60 },
      { do: "visit", path: "/" },
      { do: "add-to-cart" },
      { do: "checkout" },
    ],
    description: "lands through alice's link, comes back directly three days later and buys",
  },
  {
    name: "embed-off",
    kind: "honest",
    expected: "rightful",
    journey: ALICE,
    embedOff: true,
    description: "alice's link with the app embed switched off in the theme",
  },
  {
    name: "pixel-blocked",
    kind: "honest",
    expected: "rightful",
    journey: ALICE,
    pixelBlocked: true,
    description: "alice's link in a browser that blocks Shopify's web pixels",
  },
  {
    name: "consent-denied",
    kind: "honest",
    expected: "rightful",
    journey: ALICE,
    consentDenied: true,
    description: "alice's link; the shopper declines tracking consent (no embed writes, no pixel reports)",
  },
  {
    name: "two-tabs",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "new-tab" },
      { do: "visit", path: "/products/merino-beanie" },
      { do: "add-to-cart" },
      { do: "checkout" },
    ],
    description: "alice's link in one tab, then buys from a second tab of the shop",
  },
  {
    name: "buy-it-now",
    kind: "honest",
    expected: "rightful",
    journey: [{ do: "link", creator: "alice" }, { do: "buy-now" }],
    description: "alice's link, then Buy it now: an accelerated checkout without the cart",
  },
  {
    name: "cleared-cart",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "add-to-cart" },
      { do: "clear-cart" },
      { do: "later", minutes: 40 },
      { do: "visit", path: "/" },
      { do: "add-to-cart" },
      { do: "checkout" },
    ],
    description: "alice's link, clears the cart, comes back directly 40 minutes later and buys",
  },
  {
    name: "visitor-cookie-expired",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "add-to-cart" },
      { do: "later", minutes: 8 * 24 * 60 },
      { do: "expire-visitor-cookie" },
      { do: "link", creator: "alice" },
      { do: "checkout" },
    ],
    description:
      "alice's link and a cart; eight days later the visitor cookie has expired, the cart has not: back through alice's link, buys",
  },
  {
    name: "private-window",
    kind: "honest",
    expected: "rightful",
    journey: [{ do: "link", creator: "alice" }, { do: "private-window" }, ...ALICE],
    description: "alice's link in a normal window, then her link again in a private window, where the shopper buys",
  },
  {
    name: "cleared-cookies",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "add-to-cart" },
      { do: "later", minutes: 20 },
      { do: "clear-cookies" },
      ...ALICE,
    ],
    description: "alice's link and a cart; the shopper clears the shop's cookies and comes back through alice's link",
  },
  {
    name: "shared-address",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "other-shopper", expects: "bob", journey: [{ do: "link", creator: "bob" }, { do: "add-to-cart" }] },
      { do: "link", creator: "alice" },
      { do: "add-to-cart" },
      { do: "other-shopper", expects: "bob", journey: [{ do: "checkout" }] },
      { do: "checkout" },
    ],
    description:
      "two shoppers behind one address (two devices): bob's follower and alice's, on the shop at once; each order goes to its creator",
  },
  {
    name: "address-change",
    kind: "honest",
    expected: "rightful",
    journey: [{ do: "link", creator: "alice" }, { do: "add-to-cart" }, { do: "new-address" }, { do: "checkout" }],
    description: "alice's link on one network; the phone moves to another before checking out",
  },
  {
    name: "second-creator-later",
    kind: "honest",
    expected: "rightful",
    journey: [
      { do: "link", creator: "alice" },
      { do: "add-to-cart" },
      { do: "later", minutes: 3 * 24 * 60 },
      { do: "link", creator: "bob" },
      { do: "checkout" },
    ],
    description:
      "alice's link and a cart; three days later bob's link, then buys: the first click keeps the credit (docs/attribution.md)",
  },
  {
    name: "organic",
    kind: "honest",
    expected: "nobody",
    journey: ORGANIC,
    description: "no link: opens the shop, buys",
  },
];

/** The catalogue's entries named in `only` (all when empty); an unknown name is an error. */
export function selectEntries(only: readonly string[]): Entry[] {
  const unknown = only.filter((name) => !CATALOGUE.some((entry) => entry.name === name));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown strategy ${unknown.join(", ")}; the catalogue: ${CATALOGUE.map((e) => e.name).join(", ")}`,
    );
  return only.length === 0 ? [...CATALOGUE] : CATALOGUE.filter((entry) => only.includes(entry.name));
}

export class UsageError extends Error {}
