import { Prisma } from "@prisma/client";
import { EVIDENCE_SIGNALS, type EvidenceSignal } from "../attribution/creator-evidence";
import { DECIDABLE, type DecisionKind } from "../commissions/creator-standing";
import { sqlTime } from "../database/db.server";
import { readDate, sql } from "../database/sql.server";
import { ClickRecord, Commission, CreatorClaim, Verification } from "../database/tables";
import { t } from "../i18n";
import { periodStart, type Period } from "../units/periods";
import type { ShopFormat } from "../units/shop-format";
import { evidenceCounts } from "./evidence.server";
import {
  decisionsOf,
  standingOf,
  standingView,
  unpaidOf,
  type CreatorDecisionView,
  type StandingView,
  type UnpaidRecords,
} from "./standing-view.server";

// One creator on the Creators page (docs/admin.md, "A creator's evidence"): what the app holds
// against them in the period, as counts a merchant reads in a sentence each ("7 of 9 orders:
// another creator's click was seen first"), each with its latest orders a click away; where
// they stand with the rule and why; and the merchant's decisions on them, the latest undoable.
// The counts read the rows the rule reads (CreatorClaim, Commission) and the creator's clicks
// (ClickRecord); the denominator is the rule's own (evidenceCounts): each order naming them once.

/** How many orders each count links to. */
export const ORDER_LINKS = 20;
/** The creator's clicks whose delay is read: the latest, the median and the count over a minute taken on them. */
export const CLICK_SAMPLE = 5_000;
const SLOW_CLICK_MS = 60_000;

/** The signals the page breaks the evidence down by (contested has a count of its own). */
export const SHOWN_SIGNALS = EVIDENCE_SIGNALS.filter((signal) => signal !== "contested");

export interface EvidenceOrder {
  /** The order's verification id: its page is /app/orders/<id>. */
  id: string;
  orderId: string;
  orderName: string | null;
  at: string;
}

export interface EvidenceCount {
  key: "credited" | "review" | "contested" | "tampering" | "slow" | `signal:${EvidenceSignal}`;
  count: number;
  sentence: string;
  /** The latest orders counted, at most ORDER_LINKS; `count` may be more. */
  orders: EvidenceOrder[];
}

export interface CreatorView {
  creatorId: string;
  days: Period;
  from: string;
  /** Orders that named the creator in the period, each once (credited or claimed). */
  orders: number;
  counts: EvidenceCount[];
  signals: EvidenceCount[];
  /** `sampled`: the delay was read on the latest this many clicks (null: on all of them). */
  clicks: { lookedUp: number; sentence: string; delay: string; sampled: number | null };
  standing: StandingView | null;
  unpaid: UnpaidRecords;
  decidable: DecisionKind[];
  decisions: CreatorDecisionView[];
}

type Count = number | bigint | string | null;

interface RawOrder {
  id: string;
  orderId: string;
  orderName: string | null;
  at: unknown;
}

const count = (value: unknown) => Number((value as Count) ?? 0);

function orderOf(row: RawOrder): EvidenceOrder {
  return { id: row.id, orderId: row.orderId, orderName: row.orderName, at: readDate(row.at).toISOString() };
}

/** A claim carries the signal: the list is comma-separated, so each name is matched whole. */
function hasSignal(signal: EvidenceSignal): Prisma.Sql {
  return Prisma.sql`(',' || ${CreatorClaim.signals} || ',') LIKE ${`%,${signal},%`}`;
}

/** A duration as a merchant reads it: "under a second", "42 s", "3 min 5 s", "2 h 10 min". */
export function durationText(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 1) return t("creators.duration.underSecond");
  if (seconds < 60) return t("creators.duration.seconds", { s: seconds });
  if (seconds < 3600) return t("creators.duration.minutes", { m: Math.floor(seconds / 60), s: seconds % 60 });
  return t("creators.duration.hours", { h: Math.floor(seconds / 3600), m: Math.floor((seconds % 3600) / 60) });
}

/** The middle value (the lower of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export async function creatorView(
  shop: string,
  creatorId: string,
  days: Period,
  format: ShopFormat,
  now: Date = new Date(),
): Promise<CreatorView> {
  const from = periodStart(days, now);
  const since = sqlTime(from);
  const claimsOf = Prisma.sql`${CreatorClaim.shop} = ${shop} AND ${CreatorClaim.creatorId} = ${creatorId} AND ${CreatorClaim.orderAt} >= ${since}`;
  const recordsOf = Prisma.sql`${Commission.shop} = ${shop} AND ${Commission.creatorId} = ${creatorId} AND ${Commission.createdAt} >= ${since}`;
  const clicksOf = Prisma.sql`${ClickRecord.shop} = ${shop} AND ${ClickRecord.firstSeenAt} >= ${since}
    AND ${ClickRecord.creatorId} = ${creatorId} AND ${ClickRecord.state} = 'known'`;

  const [rule, [records], [claims], [clicks], delays, standing, unpaid, decisions] = await Promise.all([
    evidenceCounts(sql, shop, creatorId, from),
    sql.rows<{ credited: Count; review: Count }>(Prisma.sql`
      SELECT COUNT(*) AS "credited", COALESCE(SUM(CASE WHEN ${Commission.status} = 'review' THEN 1 ELSE 0 END), 0) AS "review"
      FROM ${Commission} WHERE ${recordsOf}`),
    sql.rows<Record<string, Count>>(Prisma.sql`
      SELECT COALESCE(SUM(CASE WHEN ${CreatorClaim.outcome} = 'contested' THEN 1 ELSE 0 END), 0) AS "contested",
             COALESCE(SUM(CASE WHEN ${CreatorClaim.tampering} THEN 1 ELSE 0 END), 0) AS "tampering",
             ${Prisma.join(
               SHOWN_SIGNALS.map(
                 (signal, i) =>
                   Prisma.sql`COALESCE(SUM(CASE WHEN ${hasSignal(signal)} THEN 1 ELSE 0 END), 0) AS ${Prisma.raw(`"s${i}"`)}`,
               ),
               ", ",
             )}
      FROM ${CreatorClaim} WHERE ${claimsOf}`),
    sql.rows<{ n: Count }>(Prisma.sql`SELECT COUNT(*) AS "n" FROM ${ClickRecord} WHERE ${clicksOf}`),
    sql.rows<{ clickId: string; clickedAt: unknown; firstSeenAt: unknown }>(Prisma.sql`
      SELECT ${ClickRecord.columns("clickId", "clickedAt", "firstSeenAt")} FROM ${ClickRecord}
      WHERE ${clicksOf} AND ${ClickRecord.clickedAt} IS NOT NULL
      ORDER BY ${ClickRecord.firstSeenAt} DESC LIMIT ${CLICK_SAMPLE}`),
    standingOf(shop, creatorId),
    unpaidOf(shop, creatorId),
    decisionsOf(shop, creatorId),
  ]);

  const orders = rule.orders;
  const share = (what: string, n: number) => t("creators.evidence.share", { n, count: orders, what });
  // The orders behind a count, newest first: none read for a count of none.
  const linked = async (n: number, query: Prisma.Sql) =>
    n === 0 ? [] : (await sql.rows<RawOrder>(query)).map(orderOf);
  const claimOrders = (condition: Prisma.Sql, n: number) =>
    linked(
      n,
      Prisma.sql`
        SELECT ${CreatorClaim.verificationId} AS "id", ${CreatorClaim.columns("orderId", "orderName")}, ${CreatorClaim.orderAt} AS "at"
        FROM ${CreatorClaim} WHERE ${claimsOf} AND ${condition}
        ORDER BY ${CreatorClaim.orderAt} DESC LIMIT ${ORDER_LINKS}`,
    );
  const recordOrders = (condition: Prisma.Sql, n: number) =>
    linked(
      n,
      Prisma.sql`
        SELECT ${Commission.verificationId} AS "id", ${Commission.columns("orderId", "orderName")}, ${Commission.createdAt} AS "at"
        FROM ${Commission} WHERE ${recordsOf} AND ${condition}
        ORDER BY ${Commission.createdAt} DESC LIMIT ${ORDER_LINKS}`,
    );

  const delayOf = (row: (typeof delays)[number]) =>
    readDate(row.firstSeenAt).getTime() - readDate(row.clickedAt).getTime();
  const slowClicks = delays.filter((row) => delayOf(row) > SLOW_CLICK_MS).map((row) => row.clickId);
  const credited = count(records?.credited);
  const review = count(records?.review);
  const contested = count(claims?.contested);
  const tampering = count(claims?.tampering);

  const [creditedOrders, reviewOrders, contestedOrders, tamperingOrders, slowOrders, ...signalOrders] =
    await Promise.all([
      recordOrders(Prisma.sql`1 = 1`, credited),
      recordOrders(Prisma.sql`${Commission.status} = 'review'`, review),
      claimOrders(Prisma.sql`${CreatorClaim.outcome} = 'contested'`, contested),
      claimOrders(Prisma.sql`${CreatorClaim.tampering} = TRUE`, tampering),
      ordersOfClicks(shop, creatorId, since, slowClicks),
      ...SHOWN_SIGNALS.map((signal, i) => claimOrders(hasSignal(signal), count(claims?.[`s${i}`]))),
    ]);

  const counts: EvidenceCount[] = [
    {
      key: "credited",
      count: credited,
      sentence: t("creators.evidence.credited", { count: credited }),
      orders: creditedOrders,
    },
    {
      key: "review",
      count: review,
      sentence: share(t("creators.evidence.what.review"), review),
      orders: reviewOrders,
    },
    {
      key: "contested",
      count: contested,
      sentence: share(t("creators.evidence.what.contested"), contested),
      orders: contestedOrders,
    },
    {
      key: "tampering",
      count: tampering,
      sentence: share(t("creators.evidence.what.tampering"), tampering),
      orders: tamperingOrders,
    },
  ];
  if (slowClicks.length > 0)
    counts.push({
      key: "slow",
      count: slowOrders.length,
      sentence: share(t("creators.evidence.what.slow"), slowOrders.length),
      orders: slowOrders.slice(0, ORDER_LINKS),
    });
  const signals: EvidenceCount[] = SHOWN_SIGNALS.map((signal, i) => {
    const n = count(claims?.[`s${i}`]);
    return {
      key: `signal:${signal}`,
      count: n,
      sentence: share(t(`creators.signal.${signal}`), n),
      orders: signalOrders[i]!,
    };
  });

  const lookedUp = count(clicks?.n);
  const middle = median(delays.map(delayOf));
  return {
    creatorId,
    days,
    from: from.toISOString(),
    orders,
    counts,
    signals,
    clicks: {
      lookedUp,
      sentence: t("creators.evidence.lookedUp", { count: lookedUp, credited }),
      delay:
        middle === null
          ? t("creators.evidence.delayNone")
          : t("creators.evidence.delay", {
              median: durationText(middle),
              over: slowClicks.length,
              count: delays.length,
            }),
      sampled: delays.length >= CLICK_SAMPLE ? CLICK_SAMPLE : null,
    },
    standing: standing && standingView(standing, format),
    unpaid,
    decidable: standing
      ? (Object.keys(DECIDABLE) as DecisionKind[]).filter((kind) => DECIDABLE[kind].includes(standing.state))
      : [],
    decisions,
  };
}

/**
 * Orders whose click is one of `clickIds` (at most 500 of them, each an order or two): the
 * creator's credited orders (their order's click) and their claims, newest first, each once.
 */
async function ordersOfClicks(shop: string, creatorId: string, since: Prisma.Sql, clickIds: string[]) {
  if (clickIds.length === 0) return [];
  const ids = Prisma.join(clickIds.slice(0, 500));
  const [credited, claimed] = await Promise.all([
    sql.rows<RawOrder>(Prisma.sql`
      SELECT c.${Commission.verificationId} AS "id", c.${Commission.orderId}, c.${Commission.orderName}, c.${Commission.createdAt} AS "at"
      FROM ${Commission} c JOIN ${Verification} v ON v.${Verification.id} = c.${Commission.verificationId}
      WHERE c.${Commission.shop} = ${shop} AND c.${Commission.creatorId} = ${creatorId} AND c.${Commission.createdAt} >= ${since}
        AND v.${Verification.clickId} IN (${ids})
      ORDER BY c.${Commission.createdAt} DESC`),
    sql.rows<RawOrder>(Prisma.sql`
      SELECT ${CreatorClaim.verificationId} AS "id", ${CreatorClaim.columns("orderId", "orderName")}, ${CreatorClaim.orderAt} AS "at"
      FROM ${CreatorClaim}
      WHERE ${CreatorClaim.shop} = ${shop} AND ${CreatorClaim.creatorId} = ${creatorId} AND ${CreatorClaim.orderAt} >= ${since}
        AND ${CreatorClaim.clickId} IN (${ids})`),
  ]);
  const byId = new Map([...credited, ...claimed].map((row) => [row.id, orderOf(row)]));
  return [...byId.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}
