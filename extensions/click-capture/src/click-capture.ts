// Storefront click capture for the Tag Guard app embed (blocks/click-capture.liquid).
//
// Built by scripts/build-extension.ts into assets/click-capture.js (minified IIFE, ES2018);
// never edit the asset by hand. It carries the creator's click id and the affiliate tag
// that arrived in the URL into the CART ATTRIBUTES, which Shopify copies to the order's
// note_attributes, and reports each new click or tag as a TOUCH to the app through the app
// proxy, a record no storefront script can rewrite. Names come from the single definition in
// app/attribution/cart-attributes.ts.
//
// Rules it keeps (docs/storefront.md explains why):
// - does nothing at all (no request, no storage) on a page with no new parameters whose cart
//   is the one it last wrote to: the memory is localStorage + the `cart` cookie value;
// - writes and reports only with marketing consent where the shop requires consent (Customer
//   Privacy API); without it, it reports only the click the landing page's address carried
//   (no cart, no storage, no cookie read), once, for the app to tell a recorded visit that
//   came after it (decision 049);
// - talks only to this shop's own origin (Ajax Cart API and app proxy under Shopify.routes.root),
//   checked on the resolved URL;
// - the touch is fire and forget (keepalive, never awaited), sent once the cart exists;
// - puts our attributes back when another script's cart attributes update dropped them;
// - never throws into the page, never touches the DOM beyond one status attribute on its own
//   <script> element, and reports each outcome as a `tag-guard:captured` event.
import {
  CART_ATTRIBUTES,
  CLICK_ID_PARAM,
  DEFAULT_TAG_PARAMS,
  MAX_ATTRIBUTE_LENGTH,
  TAG_HISTORY_LIMIT,
  TOUCH_PATH,
  type TouchRequest,
} from "../../../app/attribution/cart-attributes";

type Attributes = Record<string, string>;
/** What was last written, plus the cart it went to; k null = written to no cart yet (retry). */
type Memory = Attributes & { k?: string | null };
type Status = "idle" | "unchanged" | "saved" | "restored" | "denied" | "failed";
/** shopify:cart:attributes-update: the complete set the cart ends up with, and the update's result. */
type AttributesUpdate = Event & { attributes?: unknown; promise?: unknown };

interface CustomerPrivacy {
  marketingAllowed?: () => boolean;
}
interface ShopifyGlobal {
  routes?: { root?: unknown };
  customerPrivacy?: CustomerPrivacy;
  loadFeatures?: (features: { name: string; version: string }[], callback: (error?: unknown) => void) => void;
}

const CLICK = CART_ATTRIBUTES.clickId;
const TAG = CART_ATTRIBUTES.arrivedTag;
const AT = CART_ATTRIBUTES.capturedAt;
const TAGS = CART_ATTRIBUTES.tagHistory;
const KEYS = [CLICK, TAG, AT, TAGS];
const STORAGE_KEY = "tag_guard";
/**
 * Tags inside the history are cut shorter, times to an ISO string's 24: one entry, even
 * fully JSON-escaped (6 units a character), is at most 48*6 + 24*6 + 9 = 441 < 512, so
 * trimming the history to fit one attribute always ends.
 */
const HISTORY_TAG_LENGTH = 48;

const doc = document;
const script = doc.currentScript;
const shopify = (): ShopifyGlobal => (window as unknown as { Shopify?: ShopifyGlobal }).Shopify || {};

/** Text only: no control characters, at most `max` UTF-16 units, never half a surrogate pair. */
const cut = (value: unknown, max = MAX_ATTRIBUTE_LENGTH): string =>
  ((value || "") + "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, max)
    .replace(/[\ud800-\udbff]$/, "");

/** Our four attributes out of anything (cart JSON, memory); missing or odd values become "". */
const pick = (source: unknown): Attributes => {
  const out: Attributes = {};
  for (const key of KEYS) out[key] = cut(source && (source as Attributes)[key]);
  return out;
};

const history = (attributes: Attributes): [string, string][] => {
  try {
    const parsed: unknown = JSON.parse(attributes[TAGS]!);
    if (Array.isArray(parsed))
      return parsed
        .map((entry): [string, string] => [cut(entry && entry[0], HISTORY_TAG_LENGTH), cut(entry && entry[1], 24)])
        .filter((entry) => entry[0]);
  } catch (_) {
    // unreadable history: start again
  }
  return [];
};

// Listeners' own errors are reported by the browser, never thrown back into this script.
function done(status: Status) {
  if (script) script.setAttribute("data-tag-guard", status);
  doc.dispatchEvent(new CustomEvent("tag-guard:captured", { detail: status }));
}

/** What this page last wrote or meant to write: the memory when storage is blocked. */
let ours: Attributes | null = null;

function remember(attributes: Attributes, cart: string | null) {
  ours = attributes;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ ...attributes, k: cart }));
  } catch (_) {
    // storage blocked or full: the cart itself stays the record
  }
}

function recall(): Memory | null {
  try {
    const memory = JSON.parse(localStorage.getItem(STORAGE_KEY) as string);
    // k: the cart written to; null = not written yet. Anything else never matches a cart.
    if (memory) return { ...pick(memory), k: memory.k };
  } catch (_) {
    // blocked or corrupt storage behaves as no memory
  }
  return null;
}

/** The `cart` cookie value identifies the cart; it changes after a checkout. "" = no cart yet. */
const cartKey = (): string => {
  const match = /(?:^|;\s*)cart=([^;]*)/.exec(doc.cookie);
  return match ? match[1]! : "";
};

/**
 * An absolute URL under Shopify.routes.root ("/", "/fr/") on this page's own origin. The check is
 * on the URL the browser will use: roots such as "//host/", "/\\host/" or "/<tab>/host/" resolve
 * to another host, and then "/" is used instead.
 */
function url(path: string): string {
  const configured = (shopify().routes || {}).root;
  const origin = location.origin;
  try {
    const resolved = new URL((typeof configured == "string" ? configured : "/") + path, origin);
    if (resolved.origin == origin) return resolved.href;
  } catch (_) {
    // unparsable root: the default below
  }
  return origin + "/" + path;
}

function cartApi(path: string, attributes?: Attributes): Promise<{ attributes?: unknown }> {
  return fetch(url(path), {
    method: attributes && "POST",
    headers: { "Content-Type": "application/json" },
    body: attributes && JSON.stringify({ attributes }),
  }).then((response) => {
    if (!response.ok) throw 0;
    return response.json();
  });
}

/**
 * Reports the click and tag the cart now holds, when they are new to it, to the app proxy. Fire
 * and forget: keepalive lets it outlive a navigation, nothing waits for the answer, and a failure
 * leaves the cart attributes as the record. Needs a click id and the cart's token.
 */
function touch(next: Attributes, known: Attributes) {
  try {
    // The cookie is TOKEN?key=..., URL-encoded; the order's cart_token is the bare TOKEN.
    const cartToken = decodeURIComponent(cartKey()).split("?")[0]!;
    const body: TouchRequest = { clickId: next[CLICK]!, tag: next[TAG] || null, cartToken };
    if (body.clickId && cartToken && (body.clickId != known[CLICK] || next[TAG] != known[TAG])) report(body);
  } catch (_) {
    // a malformed cookie: the cart attributes stay the record
  }
}

/** Posts a touch to the app proxy, fire and forget: keepalive lets it outlive a navigation. */
function report(body: TouchRequest) {
  fetch(url(TOUCH_PATH), {
    method: "POST",
    keepalive: true,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => 0);
}

/**
 * Last touch: a new click starts a new journey; a different tag replaces the arrived one.
 * `arrived` lists the URL's tag values in order (a duplicated parameter is a later touch).
 */
function apply(base: Attributes, click: string, arrived: string[], now: string): Attributes {
  const next = { ...base };
  let tags = history(next);
  if (click && click != next[CLICK]) {
    next[CLICK] = click;
    next[AT] = now;
    next[TAG] = "";
    tags = [];
  }
  for (const tag of arrived)
    if (tag != next[TAG]) {
      next[TAG] = tag;
      tags.push([cut(tag, HISTORY_TAG_LENGTH), now]);
      // Keep the first tag of the journey (the creator's) and the most recent ones.
      while (tags.length > TAG_HISTORY_LIMIT || JSON.stringify(tags).length > MAX_ATTRIBUTE_LENGTH) tags.splice(1, 1);
      next[TAGS] = JSON.stringify(tags);
    }
  if (!tags.length) next[TAGS] = "";
  return next;
}

/** Our keys whose value in `next` differs from `known` (both picked), or null when none does. */
function diff(next: Attributes, known: Attributes): Attributes | null {
  let changes: Attributes | null = null;
  for (const key of KEYS) if (next[key] != known[key]) (changes = changes || {})[key] = next[key]!;
  return changes;
}

function capture(click: string, arrived: string[], memory: Memory | null, cart: string): Promise<Status> {
  const pending = memory && memory.k === null;
  const now = new Date().toISOString();
  // The URL's values are remembered, unwritten, before the cart is read: a read that fails must
  // not lose them (a later page view retries, as after a failed write).
  if (!pending && (click || arrived.length))
    remember(apply(memory ? pick(memory) : pick(0), click, arrived, now), null);
  // Read the cart only when our memory does not describe it (new cart, no memory) and a cart exists.
  return Promise.resolve()
    .then(() => (cart && (!memory || memory.k !== cart) ? cartApi("cart.js") : null))
    .then((current) => {
      const inCart = current && pick(current.attributes);
      const known = inCart || (memory && memory.k === cart ? memory : pick(0));
      const base = !pending && inCart && (inCart[CLICK] || inCart[TAG]) ? inCart : memory ? pick(memory) : known;
      const next = apply(base, click, arrived, now);
      const changes = diff(next, known);
      if (!changes) {
        remember(next, cart);
        // A write whose answer was lost (the shopper moved on) landed all the same: its touch,
        // sent only once a write is answered, has not gone yet.
        if (pending) touch(next, pick(0));
        return "unchanged";
      }
      // Remember first, marked unwritten, so a failed write is retried on a later page view.
      remember(next, null);
      return cartApi("cart/update.js", changes).then(() => {
        remember(next, cartKey());
        // After the write: the cart, and so its token, exists now even on a first landing.
        touch(next, known);
        return "saved";
      });
    });
}

/**
 * Another script replaced the cart's attributes (Shopify.actions.updateCart sends the complete
 * set, so a key it leaves out is removed) without ours, or with stale values of ours. The event
 * fires as the update starts: wait for its result, then merge ours back with the Ajax API.
 */
function restore(event: AttributesUpdate) {
  const kept: Attributes = {};
  const list = event.attributes;
  if (Array.isArray(list)) for (const entry of list) if (entry) kept[entry.key] = entry.value;
  const mine = recall() || ours;
  const changes = mine && diff(pick(mine), pick(kept));
  if (!changes) return done("unchanged");
  withConsent(() =>
    Promise.resolve(event.promise as { userErrors?: unknown[] } | undefined)
      .then(
        (result) =>
          // Declined (userErrors) or failed: the cart kept what it had, ours included.
          result && result.userErrors && result.userErrors.length
            ? "unchanged"
            : (remember(mine!, null),
              cartApi("cart/update.js", changes).then((): Status => {
                remember(mine!, cartKey());
                return "restored";
              })),
        (): Status => "unchanged",
      )
      .then(done, () => done("failed")),
  );
}

/**
 * Marketing consent where the shop requires it; the Allowed methods say yes where it does not.
 * `declined` runs once when the answer is no (or not yet given).
 */
function withConsent(then: (_?: unknown) => void, declined?: () => void) {
  const check = () => {
    const privacy = shopify().customerPrivacy;
    if (!privacy || !privacy.marketingAllowed || privacy.marketingAllowed()) return then();
    try {
      localStorage.removeItem(STORAGE_KEY);
    } catch (_) {
      // nothing stored, nothing to remove
    }
    if (declined) declined();
    done("denied");
    // Consent given later on this page (banner accepted) still captures this landing, once.
    let waiting = 1;
    doc.addEventListener("visitorConsentCollected", (event) => {
      const detail = (event as CustomEvent<{ marketingAllowed?: boolean } | null>).detail;
      if (waiting && detail && detail.marketingAllowed) then((waiting = 0));
    });
  };
  const api = shopify();
  if (api.customerPrivacy || !api.loadFeatures) return check();
  api.loadFeatures([{ name: "consent-tracking-api", version: "0.1" }], (error) => {
    // Without a consent answer, nothing is captured.
    if (error) done("denied");
    else safely(check);
  });
}

function safely(run: () => void) {
  try {
    run();
  } catch (_) {
    done("failed");
  }
}

doc.addEventListener("shopify:cart:attributes-update", (event) => safely(() => restore(event)));

safely(() => {
  const query = new URLSearchParams(location.search);
  // Every occurrence, in order, cleaned; empty ones dropped. The last one is the latest touch,
  // as the order pipeline reads landing_site.
  const values = (name: string) =>
    query
      .getAll(name)
      .map((value) => cut(value))
      .filter(Boolean);
  const click = values(CLICK_ID_PARAM).pop() || "";
  let params: unknown;
  try {
    params = JSON.parse((script && script.getAttribute("data-tag-params")) as string);
  } catch (_) {
    // malformed configuration: defaults below
  }
  const names = (Array.isArray(params) ? params : []).filter(
    (name) => typeof name == "string" && name != CLICK_ID_PARAM,
  );
  // The first configured parameter that has a value, as the pipeline reads landing_site.
  let arrived: string[] = [];
  for (const name of names.length ? names : DEFAULT_TAG_PARAMS) if (!arrived.length) arrived = values(name);
  const memory = recall();
  const cart = cartKey();
  // No new parameters and the cart we last wrote to: nothing to do, not a single request.
  if (!click && !arrived.length && (!memory || memory.k === cart)) return done("idle");
  withConsent(
    () => capture(click, arrived, memory, cart).then(done, () => done("failed")),
    // Tracking declined: the click's arrival alone, nothing of the browser's (no cart, no memory),
    // unless the merchant turned that off in the theme editor.
    () =>
      click &&
      (script && script.getAttribute("data-arrivals")) != "false" &&
      report({ clickId: click, tag: arrived[arrived.length - 1] || null, cartToken: null }),
  );
});
