import { storableText, storableTime } from "../database/storable";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "./cart-attributes";

// Where a click id and the tag that arrived with it come from, best source first: the cart
// attributes the storefront extension wrote (they survive navigation, and carry the time of
// the click), else the order's landing_site URL, which Shopify records from the first page.

export interface ClickEvidence {
  /**
   * app_proxy: the touches the embed reported to the server; pixel: the web pixel's landings;
   * else what the order carried.
   */
  source: "app_proxy" | "pixel" | "cart_attributes" | "landing_site";
  clickId: string;
  /** null when the click id arrived without any tag (a stripped tag). */
  arrivedTag: string | null;
  /** When the storefront first saw this click, if it recorded it. */
  capturedAt: Date | null;
  /** Tags the storefront saw, oldest first, as evidence. */
  tagHistory: { tag: string; at: string }[];
}

export type ClickSearch = { found: true; evidence: ClickEvidence } | { found: false; reason: string };

/** Ids longer than this are not click ids; tags longer than this are cut before sending. */
export const MAX_CLICK_ID_LENGTH = 256;
export const MAX_TAG_LENGTH = 1024;
/** Entries of the tag history kept as evidence (the storefront writes at most TAG_HISTORY_LIMIT). */
const MAX_TAG_HISTORY = 10;

interface OrderSources {
  cartAttributes: { name: string; value: string }[];
  landingSite: string | null;
}

export function findClick(order: OrderSources, tagParams: readonly string[]): ClickSearch {
  const attributes = new Map(order.cartAttributes.map((attribute) => [attribute.name, attribute.value]));
  const fromCart = clean(attributes.get(CART_ATTRIBUTES.clickId));
  if (fromCart) {
    return checked({
      source: "cart_attributes",
      clickId: fromCart,
      arrivedTag: clean(attributes.get(CART_ATTRIBUTES.arrivedTag)),
      capturedAt: parseTime(attributes.get(CART_ATTRIBUTES.capturedAt)),
      tagHistory: parseTagHistory(attributes.get(CART_ATTRIBUTES.tagHistory)),
    });
  }
  const query = landingQuery(order.landingSite);
  const fromLanding = query ? lastValue(query, CLICK_ID_PARAM) : null;
  if (query && fromLanding) {
    const arrivedTag = tagParams.map((name) => lastValue(query, name)).find((tag) => tag !== null) ?? null;
    return checked({ source: "landing_site", clickId: fromLanding, arrivedTag, capturedAt: null, tagHistory: [] });
  }
  return { found: false, reason: "no click id in the order's attributes or landing page" };
}

/** The click id of the order's landing page (Shopify's record of the session's first page), if any. */
export function landingSiteClickId(landingSite: string | null): string | null {
  const query = landingQuery(landingSite);
  const clickId = query ? lastValue(query, CLICK_ID_PARAM) : null;
  return clickId && clickId.length <= MAX_CLICK_ID_LENGTH ? clickId : null;
}

/**
 * The last non-empty value of a parameter, as the storefront reads the URL: an appended
 * parameter is the later touch, and an empty one (`&tag=`) says nothing.
 */
function lastValue(query: URLSearchParams, name: string): string | null {
  return (
    query
      .getAll(name)
      .map(clean)
      .filter((value) => value !== null)
      .at(-1) ?? null
  );
}

function checked(evidence: ClickEvidence): ClickSearch {
  if (evidence.clickId.length > MAX_CLICK_ID_LENGTH) {
    return { found: false, reason: `the click id is ${evidence.clickId.length} characters long, not a click id` };
  }
  const arrivedTag = evidence.arrivedTag === null ? null : storableText(evidence.arrivedTag.slice(0, MAX_TAG_LENGTH));
  return { found: true, evidence: { ...evidence, arrivedTag } };
}

function clean(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  // A landing page's %00 decodes to NUL: stored as the replacement character instead.
  return trimmed ? storableText(trimmed) : null;
}

function landingQuery(landingSite: string | null): URLSearchParams | null {
  if (!landingSite) return null;
  try {
    return new URL(landingSite, "https://landing.invalid").searchParams;
  } catch {
    return null;
  }
}

function parseTime(value: string | undefined): Date | null {
  if (!value) return null;
  const time = Date.parse(value);
  return storableTime(time) ? new Date(time) : null;
}

/** The storefront's tag history (`_lb_tags`: JSON [[tag, time], ...], oldest first), read defensively. */
export function parseTagHistory(value: string | null | undefined): { tag: string; at: string }[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((entry): entry is [string, unknown] => Array.isArray(entry) && typeof entry[0] === "string")
      .slice(-MAX_TAG_HISTORY)
      .map(([tag, at]) => ({
        tag: storableText(tag.slice(0, MAX_TAG_LENGTH)),
        at: typeof at === "string" ? storableText(at.slice(0, 40)) : "",
      }));
  } catch {
    return [];
  }
}
