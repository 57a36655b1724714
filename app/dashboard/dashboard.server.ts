import { witnessOf, type Witness } from "../attribution/witnesses";
import { codeTotals } from "../codes/code-totals.server";
import { readBoolean, readDate, sql } from "../database/sql.server";
import { env } from "../platform/env.server";
import { getPublicSettings } from "../settings/shop-settings.server";
import { OUTCOMES, type Outcome } from "../verification/outcomes";
import { creatorAttention, type CreatorAttention } from "./creator-attention.server";
import { dashboardQueries } from "./dashboard-queries.server";
import { formatMoney, percentage } from "../units/money";
import { periodStart, type Period } from "../units/periods";
import {
  DEFAULT_LOCALE,
  formatMinorCurrency,
  localeMoney,
  formatShopDay,
  timesIn,
  UTC,
  zoneOffsetMinutes,
  type ShopFormat,
} from "../units/shop-format";
import { adminOrderUrl } from "../units/shopify-ids";
import { shopFormat } from "../shop-profile/shop-profile.server";
import type { AdminGraphql } from "../shopify-admin/admin-client.server";
import { creatorNames } from "../commissions/creator-profiles.server";
import type { ReconciliationView } from "../reconciliation/reconciliation-view";
import { reconciliationStatus } from "../reconciliation/reconciliation.server";

// Everything the dashboard shows, as plain JSON: counts, exact money as text, banners with
// a next step. The settings are read through getPublicSettings, which carries no key.

export interface RecentVerification {
  id: string;
  orderId: string;
  adminOrderUrl: string;
  orderName: string | null;
  outcome: string | null;
  expectedTag: string | null;
  arrivedTag: string | null;
  creatorId: string | null;
  createdAt: string;
}

export interface DataRequestSummary {
  id: string;
  customerId: string | null;
  ordersAsked: number;
  ordersFound: number;
  /** What the app holds for the customer, pretty-printed, for the merchant to pass on. */
  data: string;
  receivedAt: string;
}

export interface AttentionOrder {
  id: string;
  orderId: string;
  orderName: string | null;
  outcome: string | null;
  createdAt: string;
}

export interface Dashboard {
  configured: boolean;
  /** Every time on the page as the merchant reads it (the shop's zone), by its ISO text. */
  times: Record<string, string>;
  timeZone: { name: string; known: boolean };
  period: Period;
  counts: Record<Outcome | "verified" | "inProgress" | "total", number>;
  hijackRate: string | null;
  /** total: "USD 1,234.56" (exact, for exports and tests); totalText: as the merchant's locale writes it. */
  redirected: { currency: string; total: string; totalText: string; orders: number }[];
  /** The latest failed or key-rejected orders of the period, for the "needs your attention" card. */
  attention: AttentionOrder[];
  /** Contested orders held for the merchant's decision (docs/attribution.md), of any period: how many, and the latest. */
  inReview: { count: number; orders: Omit<AttentionOrder, "outcome">[] };
  /** Suspected creators (their commissions held) and the contested orders by the creators they name. */
  creators: CreatorAttention;
  topArrivedTags: { tag: string; orders: number }[];
  /** The codes that rode on most hijacked orders in the period (the Codes page's first rows). */
  topCodes: { code: string; currency: string; hijacked: number; discountOnHijacked: string }[];
  /** Orders decided from the landing record after the service forgot their click, and tampered carts. */
  landing: { savedFromExpiry: number; tampered: number };
  /** Orders in the period whose click was captured, per witness (decision 030), and those with none. */
  coverage: Record<Witness, number> & { none: number };
  /** The same per day of the shop's zone (YYYY-MM-DD, and as the merchant reads it), newest first, days with orders only. */
  coverageByDay: ({ day: string; dayText: string } & Record<Witness, number> & { none: number })[];
  banners: {
    credentialsRejectedAt: string | null;
    captureNotSeen: boolean;
    failing: number;
  };
  themeEditorUrl: string;
  recent: RecentVerification[];
  /** The merchant's names for the creators on the page (CreatorProfile), by creator id. */
  creatorNames: Record<string, string>;
  /** The reconciliation sweep: when it last checked the shop's orders and what it found; null before the first authorization. */
  reconciliation: ReconciliationView | null;
  dataRequests: DataRequestSummary[];
}

const TOP_CODES = 5;

export async function getDashboard(
  shop: string,
  period: Period,
  now: Date = new Date(),
  format: ShopFormat & { zoneKnown?: boolean } = { locale: DEFAULT_LOCALE, timeZone: UTC },
): Promise<Dashboard> {
  const settings = await getPublicSettings(shop);
  // Days are the shop's, at today's offset: a day either side of a daylight-saving change
  // counts an hour of the next one, which a chart of days can bear.
  const offset = zoneOffsetMinutes(format.timeZone, now);
  const q = dashboardQueries(shop, periodStart(period, now), offset);
  const [
    outcomeRows,
    totalRows,
    tagRows,
    seenRows,
    landingRows,
    recentRows,
    requestRows,
    dayRows,
    codeRows,
    attentionRows,
    reviewRows,
    [reviewCount],
    reconciliation,
    creators,
  ] = await Promise.all([
    sql.rows<{ outcome: string | null; n: Count }>(q.outcomeCounts),
    sql.rows<{ currency: string; total: string | null; n: Count }>(q.redirectedTotals),
    sql.rows<{ tag: string; n: Count }>(q.topArrivedTags),
    sql.rows<{ seen: unknown }>(q.captureSeen),
    sql.rows<{ savedFromExpiry: Count; tampered: Count }>(q.landing),
    sql.rows<RawRecent>(q.recent),
    sql.rows<RawDataRequest>(q.dataRequests),
    sql.rows<{ source: string | null; day: Count; n: Count }>(q.coverageByDay),
    codeTotals(shop, { period, search: "", hijackedOnly: true, sort: "harm" }, now, TOP_CODES),
    sql.rows<RawAttention>(q.attention),
    sql.rows<Omit<RawAttention, "outcome">>(q.inReview),
    sql.rows<{ n: Count }>(q.inReviewCount),
    reconciliationStatus(shop, now),
    creatorAttention(shop, localeMoney(format.locale)),
  ]);
  const creatorIds = [
    ...recentRows.flatMap((row) => (row.creatorId ? [row.creatorId] : [])),
    ...creators.suspected.creators.map((creator) => creator.creatorId),
    ...creators.reviewByCreator.map((group) => group.creatorId),
  ];

  const counts = Object.fromEntries(
    [...OUTCOMES, "verified", "inProgress", "total"].map((k) => [k, 0]),
  ) as Dashboard["counts"];
  for (const row of outcomeRows) {
    const n = Number(row.n);
    counts.total += n;
    if (row.outcome === null) counts.inProgress += n;
    else if ((OUTCOMES as readonly string[]).includes(row.outcome)) counts[row.outcome as Outcome] += n;
  }
  counts.verified = counts.matched + counts.hijacked;
  const coverage = { landing: 0, pixel: 0, cart_attributes: 0, landing_site: 0, none: counts.unattributed };
  // The NULL rows (no click) are the unattributed orders, counted above.
  for (const row of dayRows) {
    const witness = witnessOf(row.source);
    if (witness) coverage[witness] += Number(row.n);
  }

  const dashboard: Omit<Dashboard, "times"> = {
    configured: settings !== null,
    timeZone: { name: format.timeZone, known: format.zoneKnown ?? format.timeZone !== UTC },
    period,
    counts,
    hijackRate: percentage(counts.hijacked, counts.verified),
    redirected: totalRows.map((row) => ({
      currency: row.currency,
      total: formatMoney(row.total ?? "0", row.currency),
      totalText: formatMinorCurrency(row.total ?? "0", row.currency, format.locale),
      orders: Number(row.n),
    })),
    attention: attentionRows.map((row) => ({
      id: row.id,
      orderId: row.orderId,
      orderName: row.orderName,
      outcome: row.outcome,
      createdAt: readDate(row.createdAt).toISOString(),
    })),
    inReview: {
      count: Number(reviewCount?.n ?? 0),
      orders: reviewRows.map((row) => ({
        id: row.id,
        orderId: row.orderId,
        orderName: row.orderName,
        createdAt: readDate(row.createdAt).toISOString(),
      })),
    },
    creators,
    topArrivedTags: tagRows.map((row) => ({ tag: row.tag, orders: Number(row.n) })),
    topCodes: codeRows.map((row) => ({
      code: row.code,
      currency: row.currency,
      hijacked: row.hijacked,
      discountOnHijacked: row.discountOnHijacked,
    })),
    landing: {
      savedFromExpiry: Number(landingRows[0]?.savedFromExpiry ?? 0),
      tampered: Number(landingRows[0]?.tampered ?? 0),
    },
    coverage,
    coverageByDay: byDay(dayRows, format),
    banners: {
      credentialsRejectedAt: settings?.credentialsRejectedAt
        ? new Date(settings.credentialsRejectedAt).toISOString()
        : null,
      captureNotSeen: settings !== null && !readBoolean(seenRows[0]?.seen),
      failing: counts.failed,
    },
    themeEditorUrl: themeEditorUrl(shop),
    recent: recentRows.map((row) => ({
      id: row.id,
      orderId: row.orderId,
      adminOrderUrl: adminOrderUrl(row.orderId),
      orderName: row.orderName,
      outcome: row.outcome,
      expectedTag: row.expectedTag,
      arrivedTag: row.arrivedTag,
      creatorId: row.creatorId,
      createdAt: readDate(row.createdAt).toISOString(),
    })),
    creatorNames: await creatorNames(shop, creatorIds),
    reconciliation: reconciliation && {
      sweptAt: reconciliation.sweptAt?.toISOString() ?? null,
      failedAt: reconciliation.failedAt?.toISOString() ?? null,
      lastError: reconciliation.lastError,
      found: reconciliation.found,
      pending: reconciliation.pending,
    },
    dataRequests: requestRows.map(summariseDataRequest),
  };
  return { ...dashboard, times: timesIn(dashboard, format) };
}

function byDay(
  rows: { source: string | null; day: Count; n: Count }[],
  format: ShopFormat,
): Dashboard["coverageByDay"] {
  const days = new Map<number, Dashboard["coverageByDay"][number]>();
  for (const row of rows) {
    const day = Number(row.day);
    let entry = days.get(day);
    if (!entry) {
      const midday = new Date(day * 86_400_000 + 43_200_000);
      entry = {
        day: midday.toISOString().slice(0, 10),
        // Noon of the shop's day, read in UTC, is that day whatever the zone's offset.
        dayText: formatShopDay(midday, { locale: format.locale, timeZone: UTC }),
        landing: 0,
        pixel: 0,
        cart_attributes: 0,
        landing_site: 0,
        none: 0,
      };
      days.set(day, entry);
    }
    const witness = row.source === null ? "none" : witnessOf(row.source);
    if (witness) entry[witness] += Number(row.n);
  }
  return [...days.entries()].sort(([a], [b]) => b - a).map(([, entry]) => entry);
}

/** Opens the theme editor on the app embed so the merchant can switch it on in one click. */
export function themeEditorUrl(shop: string): string {
  return `https://${shop}/admin/themes/current/editor?context=apps&activateAppId=${encodeURIComponent(env().SHOPIFY_API_KEY)}/click-capture`;
}

/** COUNT(*): a number or bigint on SQLite, PostgreSQL's bigint as decimal text. */
type Count = number | bigint | string;

interface RawRecent {
  id: string;
  orderId: string;
  orderName: string | null;
  outcome: string | null;
  expectedTag: string | null;
  arrivedTag: string | null;
  creatorId: string | null;
  /** Unix milliseconds from SQLite, ISO text from PostgreSQL: readDate reads both. */
  createdAt: unknown;
}

interface RawAttention {
  id: string;
  orderId: string;
  orderName: string | null;
  outcome: string | null;
  createdAt: unknown;
}

interface RawDataRequest {
  id: string;
  customerId: string | null;
  ordersAsked: string;
  data: string;
  receivedAt: unknown;
}

function summariseDataRequest(row: RawDataRequest): DataRequestSummary {
  return {
    id: row.id,
    customerId: row.customerId,
    ordersAsked: jsonArrayLength(row.ordersAsked),
    ordersFound: jsonArrayLength(row.data, "orders"),
    data: pretty(row.data),
    receivedAt: readDate(row.receivedAt).toISOString(),
  };
}

function jsonArrayLength(json: string, key?: string): number {
  try {
    const value: unknown = JSON.parse(json);
    const list = key && value && typeof value === "object" ? (value as Record<string, unknown>)[key] : value;
    return Array.isArray(list) ? list.length : 0;
  } catch {
    return 0;
  }
}

const MAX_SHOWN_DATA = 20_000;

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2).slice(0, MAX_SHOWN_DATA);
  } catch {
    return json.slice(0, MAX_SHOWN_DATA);
  }
}

/** The dashboard for a merchant: the shop's zone (asked of Shopify once if not yet known) and their locale. */
export async function getDashboardFor(shop: string, period: Period, locale: string, graphql: AdminGraphql) {
  return getDashboard(shop, period, new Date(), await shopFormat(shop, locale, graphql));
}
