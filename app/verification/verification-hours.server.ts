import { foldHourRows } from "../database/dialect-sql.server";

// VerificationHour, the dashboard's rollup of orders by hour, is appended to by triggers on
// Verification (a row per change, so no two orders wait on one row); this folds those rows, a
// key at a time, so a page reads about one row per hour, outcome and capture source.

/** Keys folded per statement: bounds a fold's transaction, and on SQLite its parameters (4 a key). */
const KEYS_PER_FOLD = 1_000;
/** Batches per call: a fold that cannot keep up with the appends stops, and the next call goes on. */
const MOST_FOLDS = 100;

/** Folds the rollup's loose rows; how many keys it folded. */
export async function foldVerificationHours(): Promise<number> {
  let folded = 0;
  for (let fold = 0; fold < MOST_FOLDS; fold += 1) {
    const keys = await foldHourRows(KEYS_PER_FOLD);
    folded += keys;
    if (keys < KEYS_PER_FOLD) break;
  }
  return folded;
}
