import { Prisma } from "@prisma/client";
import { CREATOR_STATES, HELD_STATES, type CreatorState } from "../commissions/creator-standing";
import { creatorsPage } from "../commissions/creators.server";
import { listPayouts, readablePayouts } from "../commissions/payout-history.server";
import { readDate, sql } from "../database/sql.server";
import { CreatorStanding } from "../database/tables";
import { t } from "../i18n";
import { shopFormat } from "../shop-profile/shop-profile.server";
import { parsePeriod, type Period } from "../units/periods";
import { DEFAULT_LOCALE, formatShopTime, localeMoney, timesIn, UTC, type ShopFormat } from "../units/shop-format";
import { creatorView } from "./creator-page.server";
import { readEvidence } from "./standing-view.server";

// The Creators page's data (docs/admin.md, "Creators"): the totals per creator and currency
// with each creator's standing, held creators first; the suspected creators above them, each
// with why in a line; and, for one creator (?creator=), their evidence in the period, their
// standing and the decisions on them (creator-page.server.ts), and their latest payouts.

export interface CreatorsFilter {
  creator: string | null;
  days: Period;
  /** Only the creators in this standing. */
  standing: CreatorState | null;
}

/** Standings read for the page's badges; a shop with more is an attack the suspected list shows first. */
const STANDINGS_READ = 2_000;
const SUSPECTED_SHOWN = 50;
/** A creator's latest payouts on their page (every one is on Payouts). */
const CREATOR_PAYOUTS = 20;

export function parseCreatorsFilter(params: URLSearchParams): CreatorsFilter {
  const standing = params.get("standing");
  return {
    creator: params.get("creator")?.trim().slice(0, 200) || null,
    days: parsePeriod(params.get("days")),
    standing: (CREATOR_STATES as readonly string[]).includes(standing ?? "") ? (standing as CreatorState) : null,
  };
}

export interface SuspectedCreator {
  creatorId: string;
  suspectedAt: string | null;
  /** Why, in a line: "3 of 4 orders named their click without crediting it; suspected ...". */
  line: string;
}

export async function creatorsPageData(
  shop: string,
  filter: CreatorsFilter,
  format: ShopFormat = { locale: DEFAULT_LOCALE, timeZone: UTC },
  now: Date = new Date(),
) {
  const standings = await sql.rows<{ creatorId: string; state: string; suspectedAt: unknown; evidence: string }>(
    Prisma.sql`
    SELECT ${CreatorStanding.columns("creatorId", "state", "suspectedAt", "evidence")} FROM ${CreatorStanding}
    WHERE ${CreatorStanding.shop} = ${shop}
    ORDER BY ${CreatorStanding.suspectedAt} DESC, ${CreatorStanding.creatorId} LIMIT ${STANDINGS_READ}`,
  );
  const stateOf = new Map(standings.map((row) => [row.creatorId, row.state as CreatorState]));
  const suspected: SuspectedCreator[] = standings
    .filter((row) => row.state === "suspected")
    .slice(0, SUSPECTED_SHOWN)
    .map((row) => {
      const evidence = readEvidence(row.evidence);
      const suspectedAt = row.suspectedAt == null ? null : readDate(row.suspectedAt).toISOString();
      return {
        creatorId: row.creatorId,
        suspectedAt,
        line: t("creators.suspectedRow", {
          claims: evidence?.claims ?? 0,
          count: evidence?.orders ?? 0,
          time: formatShopTime(suspectedAt, format),
        }),
      };
    });
  const choice =
    filter.creator ??
    (filter.standing ? standings.filter((row) => row.state === filter.standing).map((row) => row.creatorId) : null);
  const page = await creatorsPage(
    shop,
    choice,
    format.locale,
    suspected.map((s) => s.creatorId),
  );
  // Held creators first (suspected, then blocked), each group in the totals' own order.
  const rank = (creatorId: string) => {
    const at = HELD_STATES.indexOf(stateOf.get(creatorId) as CreatorState);
    return at === -1 ? HELD_STATES.length : at;
  };
  const rows = [...page.rows].sort((a, b) => rank(a.creatorId) - rank(b.creatorId));
  const shown = new Set([...rows.map((row) => row.creatorId), ...suspected.map((s) => s.creatorId)]);
  if (filter.creator) shown.add(filter.creator);
  const standing: Record<string, CreatorState> = {};
  for (const id of shown) {
    const state = stateOf.get(id);
    if (state) standing[id] = state;
  }
  const data = {
    ...page,
    rows,
    filter,
    standing,
    suspected,
    view: filter.creator ? await creatorView(shop, filter.creator, filter.days, format, now) : null,
    // Their payouts, paid or bounced (a bounce says why, and that the balance is payable again).
    payouts: filter.creator
      ? readablePayouts(
          await listPayouts(shop, CREATOR_PAYOUTS, localeMoney(format.locale), filter.creator),
          format.locale,
        )
      : [],
  };
  return { ...data, times: timesIn(data, format) };
}

/** The Creators page for a merchant: the filter from the URL, times in the shop's zone, money in their locale. */
export async function creatorsPageFor(shop: string, params: URLSearchParams, locale: string) {
  return creatorsPageData(shop, parseCreatorsFilter(params), await shopFormat(shop, locale));
}
