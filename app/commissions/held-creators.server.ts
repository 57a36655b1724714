import { Prisma } from "@prisma/client";
import type { Sql } from "../database/sql.server";
import { CreatorStanding } from "../database/tables";
import { HELD_STATES } from "./creator-standing";

export type HeldState = "suspected" | "blocked";

/**
 * The shop's held creators (creator-standing.ts) and why: a handful of rows at most, read by the
 * order's attribution, the Payouts page and the contests a suspicion settles.
 */
export async function heldCreators(db: Sql, shop: string): Promise<Map<string, HeldState>> {
  const rows = await db.rows<{ creatorId: string; state: HeldState }>(Prisma.sql`
    SELECT ${CreatorStanding.creatorId}, ${CreatorStanding.state} FROM ${CreatorStanding}
    WHERE ${CreatorStanding.shop} = ${shop} AND ${CreatorStanding.state} IN (${Prisma.join([...HELD_STATES])})`);
  return new Map(rows.map((row) => [row.creatorId, row.state]));
}
