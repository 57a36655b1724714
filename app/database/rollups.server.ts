import { foldRows, type FoldedRollup, type FoldedTable } from "./dialect-sql.server";
import { CommissionCreator, CommissionDay, VerificationHour } from "./tables";

// The rollups triggers keep by appending a row per change (so no two writes wait on one row),
// and their fold, which merges each key's rows into one so a page reads about a row per key:
// VerificationHour for the dashboard's counts, CommissionCreator for the Creators page,
// CommissionDay for the ledger's totals.

const VERIFICATION_HOURS: FoldedRollup<"VerificationHour"> = {
  table: VerificationHour,
  keys: ["shop", "hour", "outcome", "source"],
  sums: ["q0", "q1", "q2", "q3"],
};

const COMMISSION_CREATORS: FoldedRollup<"CommissionCreator"> = {
  table: CommissionCreator,
  keys: ["shop", "creatorId", "currency", "status", "redirected"],
  sums: ["amountMinor", "records"],
};

const COMMISSION_DAYS: FoldedRollup<"CommissionDay"> = {
  table: CommissionDay,
  keys: ["shop", "day", "currency", "status", "redirected"],
  sums: ["amountMinor", "records"],
};

/** Keys folded per statement: bounds a fold's transaction, and on SQLite its parameters (5 a key). */
const KEYS_PER_FOLD = 1_000;
/** Batches per rollup and call: a fold that cannot keep up with the appends stops, and the next call goes on. */
const MOST_FOLDS = 100;

/** Folds the rollups' loose rows; how many keys it folded. */
export async function foldRollups(): Promise<number> {
  let folded = 0;
  for (const rollup of [VERIFICATION_HOURS, COMMISSION_CREATORS, COMMISSION_DAYS] as FoldedRollup<FoldedTable>[]) {
    for (let fold = 0; fold < MOST_FOLDS; fold += 1) {
      const keys = await foldRows(rollup, KEYS_PER_FOLD);
      folded += keys;
      if (keys < KEYS_PER_FOLD) break;
    }
  }
  return folded;
}
