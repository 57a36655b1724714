import { Prisma } from "@prisma/client";
import { readDate, sql } from "../database/sql.server";
import { Commission, CreatorClaim, CreatorStanding } from "../database/tables";
import type { MoneyText } from "../units/money";

// What the dashboard's "Needs your attention" says of creators (docs/admin.md): the suspected
// ones, each with what of theirs is held, and the contested orders grouped by the creators they
// name, so the merchant sees where one decision on a creator settles many orders.

/** Suspected creators listed by name; the count covers them all. */
const SUSPECTED_SHOWN = 5;
/** Creators the review list groups by; the contested orders read for it. */
const GROUPS_SHOWN = 10;
const REVIEW_READ = 1_000;

export interface CreatorAttention {
  suspected: {
    count: number;
    creators: {
      creatorId: string;
      suspectedAt: string | null;
      /** What of theirs waits, per currency, as the merchant's locale writes it (pending and approved records). */
      held: string[];
    }[];
  };
  /** Contested orders (status review) by each creator they name, most orders first. */
  reviewByCreator: { creatorId: string; orders: number; state: string | null }[];
}

type Count = number | bigint | string;

export async function creatorAttention(shop: string, money: MoneyText): Promise<CreatorAttention> {
  const [suspectedRows, [suspectedCount], named] = await Promise.all([
    sql.rows<{ creatorId: string; suspectedAt: unknown }>(Prisma.sql`
      SELECT ${CreatorStanding.columns("creatorId", "suspectedAt")} FROM ${CreatorStanding}
      WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.state} = 'suspected'
      ORDER BY ${CreatorStanding.suspectedAt} DESC, ${CreatorStanding.creatorId} LIMIT ${SUSPECTED_SHOWN}`),
    sql.rows<{ n: Count }>(Prisma.sql`
      SELECT COUNT(*) AS "n" FROM ${CreatorStanding}
      WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.state} = 'suspected'`),
    // Each contested order's creators: its claims (every creator it names) and its record's own.
    sql.rows<{ creatorId: string; verificationId: string }>(Prisma.sql`
      SELECT k.${CreatorClaim.creatorId}, k.${CreatorClaim.verificationId} FROM ${CreatorClaim} k
      JOIN ${Commission} c ON c.${Commission.verificationId} = k.${CreatorClaim.verificationId}
      WHERE c.${Commission.shop} = ${shop} AND c.${Commission.status} = 'review'
      UNION
      SELECT ${Commission.creatorId}, ${Commission.verificationId} FROM ${Commission}
      WHERE ${Commission.shop} = ${shop} AND ${Commission.status} = 'review'
      LIMIT ${REVIEW_READ}`),
  ]);
  const ids = suspectedRows.map((row) => row.creatorId);
  const held =
    ids.length === 0
      ? []
      : await sql.rows<{ creatorId: string; currency: string; total: string | null }>(Prisma.sql`
          SELECT ${Commission.creatorId}, ${Commission.currency}, CAST(SUM(${Commission.amountMinor}) AS TEXT) AS "total"
          FROM ${Commission}
          WHERE ${Commission.shop} = ${shop} AND ${Commission.creatorId} IN (${Prisma.join(ids)})
            AND ${Commission.status} IN ('pending', 'approved')
          GROUP BY ${Commission.creatorId}, ${Commission.currency} ORDER BY ${Commission.currency}`);

  const orders = new Map<string, Set<string>>();
  for (const row of named) {
    const set = orders.get(row.creatorId) ?? new Set<string>();
    set.add(row.verificationId);
    orders.set(row.creatorId, set);
  }
  const groups = [...orders.entries()]
    .map(([creatorId, set]) => ({ creatorId, orders: set.size }))
    .sort((a, b) => b.orders - a.orders || (a.creatorId < b.creatorId ? -1 : 1))
    .slice(0, GROUPS_SHOWN);
  const states =
    groups.length === 0
      ? []
      : await sql.rows<{ creatorId: string; state: string }>(Prisma.sql`
          SELECT ${CreatorStanding.columns("creatorId", "state")} FROM ${CreatorStanding}
          WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.creatorId} IN (${Prisma.join(groups.map((g) => g.creatorId))})`);
  return {
    suspected: {
      count: Number(suspectedCount?.n ?? 0),
      creators: suspectedRows.map((row) => ({
        creatorId: row.creatorId,
        suspectedAt: row.suspectedAt == null ? null : readDate(row.suspectedAt).toISOString(),
        held: held
          .filter((sum) => sum.creatorId === row.creatorId && sum.total !== null && sum.total !== "0")
          .map((sum) => money(BigInt(sum.total!), sum.currency)),
      })),
    },
    reviewByCreator: groups.map((group) => ({
      ...group,
      state: states.find((row) => row.creatorId === group.creatorId)?.state ?? null,
    })),
  };
}
