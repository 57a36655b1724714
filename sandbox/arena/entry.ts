// What a catalogue entry is made of (sandbox/arena/catalogue.ts holds the entries): the steps a
// shopper takes, the attacker extension's actions by the name arena-config.json's "strategy"
// gives them, the attacks from outside the page, and how the shop and the browser are set up.

/** A creator's part in a journey: the steps name creators by role, the arena (or the population run) casts them. */
export type Role = "alice" | "bob";

export type Step =
  /** Follows a creator's tracked link: the click service records a click and redirects to the product. */
  | { do: "link"; creator: Role }
  /** Opens a page of the shop directly (typed address, bookmark): path and query. */
  | { do: "visit"; path: string }
  | { do: "add-to-cart" }
  | { do: "clear-cart" }
  /** From the cart: Check out, the checkout page, Pay now, the thank-you page. */
  | { do: "checkout" }
  /** Buy it now on the product page: an accelerated checkout, without the cart. */
  | { do: "buy-now" }
  /** Time passes (the arena ages every record instead of waiting). */
  | { do: "later"; minutes: number }
  /** Opens another tab of the same browser; the next steps happen there. */
  | { do: "new-tab" }
  /** Opens a private window of the same browser (no cookies, no storage, no extension); the next steps happen there. */
  | { do: "private-window" }
  /** The shopper clears the shop's cookies (Clear browsing data). */
  | { do: "clear-cookies" }
  /** The visitor cookie expires (Safari caps script-set cookies at seven days); the cart cookie stays. */
  | { do: "expire-visitor-cookie" }
  /** The shopper's network address changes (a phone moving between networks). */
  | { do: "new-address" }
  /**
   * Another shopper, in a browser of their own (another device: another user agent) behind the
   * same network address, plays `journey`; their order must be credited to `expects`.
   */
  | { do: "other-shopper"; journey: Step[]; expects: Role };

/** Things the extension does, by the name arena-config.json's "strategy" gives them. */
export type AttackerAction =
  | "rewrite-cart"
  | "affiliate-redirect"
  | "own-touch"
  | "race-embed"
  | "strip-click"
  | "swap-tag"
  | "replay-expired"
  | "click-pool"
  | "forge-pixel-own"
  | "forge-pixel-own-token"
  | "forge-pixel-shopper"
  | "forge-pixel-shopper-token"
  | "late-report"
  | "block-pixel-late-report"
  | "leaked-code"
  | "race-pixel"
  | "rewrite-landing-request"
  | "visitor-swap"
  | "new-visit-own-link"
  | "visitor-reset"
  | "burying"
  | "main-world-wrap"
  | "cart-replace"
  | "reset-and-replace";

/** Reports posted from outside the page (node, through the storefront's app proxy) before the order's webhook. */
export type OutsideAction = "forge-pixel-own" | "forge-pixel-own-token";

export interface Entry {
  name: string;
  kind: "attack" | "honest";
  /** One line: what the attacker does, or what the shopper does. */
  description: string;
  expected: "rightful" | "nobody";
  journey: Step[];
  attacker?: AttackerAction;
  outside?: OutsideAction;
  /** After the order has its outcome, the shopper opens the order status page again. */
  revisit?: boolean;
  /** The theme's app embed is off. */
  embedOff?: boolean;
  /** The shopper's browser blocks Shopify's web pixels runtime (an ad blocker). */
  pixelBlocked?: boolean;
  /** The shop asks for consent and the shopper declines it. */
  consentDenied?: boolean;
  /**
   * An attack the app is known not to stop, and where docs/attribution.md says why and what
   * would close it. It still counts in attackerCredited; it does not fail the run.
   */
  knownException?: string;
}
