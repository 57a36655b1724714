import { storableText, storableTime } from "../database/storable";
import { CART_ATTRIBUTES, CLICK_ID_PARAM } from "./cart-attributes";

// The claims an order carries, a click id and the tag that arrived with it, read out of our cart
// attributes (the storefront extension wrote them; any script can rewrite them) and a landing
// page URL Shopify recorded (landing_site, a journey visit's landingPage).

export interface ClickEvidence {
  /**
   * app_proxy: the touches the embed reported to the server; pixel: the web pixel's landings;
   * landing_site: a landing page Shopify recorded; cart_attributes: the order's attributes.
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

/** Ids longer than this are not click ids; tags longer than this are cut before sending. */
export const MAX_CLICK_ID_LENGTH = 256;
export const MAX_TAG_LENGTH = 1024;
/** Entries of the tag history kept as evidence (the storefront writes at most TAG_HISTORY_LIMIT). */
const MAX_TAG_HISTORY = 10;

/** What our cart attributes on the order claim: a click id (null: none, or not one), its tag, when and which tags. */
export interface CartClaim {
  clickId: string | null;
  /** Why the cart's click id was not taken, when it held one that is not a click id. */
  refused?: string;
  tag: string | null;
  capturedAt: Date | null;
  tagHistory: ClickEvidence["tagHistory"];
}

export function cartClaim(cartAttributes: readonly { name: string; value: string }[]): CartClaim {
  const attributes = new Map(cartAttributes.map((attribute) => [attribute.name, attribute.value]));
  const written = clean(attributes.get(CART_ATTRIBUTES.clickId));
  const clickId = clickIdOf(written);
  const tag = clean(attributes.get(CART_ATTRIBUTES.arrivedTag));
  return {
    clickId,
    ...(written !== null &&
      clickId === null && { refused: `the cart's click id is ${written.length} characters long, not a click id` }),
    tag: cutTag(tag),
    capturedAt: clickId ? parseTime(attributes.get(CART_ATTRIBUTES.capturedAt)) : null,
    tagHistory: clickId ? parseTagHistory(attributes.get(CART_ATTRIBUTES.tagHistory)) : [],
  };
}

/**
 * A landing page Shopify recorded, read as the storefront reads a URL: its click id and the
 * first of the shop's tag parameters it carries. null when there is no page (Shopify recorded none).
 */
export function recordedVisit(
  landingPage: string | null,
  tagParams: readonly string[],
  at: Date | null = null,
): { clickId: string | null; tag: string | null; at: Date | null } | null {
  if (!landingPage) return null;
  const query = landingQuery(landingPage);
  const clickId = clickIdOf(query ? lastValue(query, CLICK_ID_PARAM) : null);
  const tag =
    query && clickId ? (tagParams.map((name) => lastValue(query, name)).find((t) => t !== null) ?? null) : null;
  return { clickId, tag: cutTag(tag), at };
}

/** The click id of the order's landing page (Shopify's record of the session's first page), if any. */
export function landingSiteClickId(landingSite: string | null): string | null {
  // Stryker disable next-line ArrayDeclaration: only the click id is read, and the tag parameters choose only the tag
  return recordedVisit(landingSite, [])?.clickId ?? null;
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

/** A click id as the app takes it: longer than any click id is none. */
function clickIdOf(value: string | null): string | null {
  return value !== null && value.length <= MAX_CLICK_ID_LENGTH ? value : null;
}

function cutTag(tag: string | null): string | null {
  return tag === null ? null : storableText(tag.slice(0, MAX_TAG_LENGTH));
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
