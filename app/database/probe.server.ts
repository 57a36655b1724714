// What this thread asked of its database: statements by kind, round trips to the server, the
// transactions they ran in, and the time spent waiting for answers and for a pooled
// connection. Plain counters on the path every statement takes (a few nanoseconds each), read
// by the metrics endpoint (app/metrics) and, through it, by `npm run bench -- --probe`, which
// divides them by the orders a run carried (docs/lab/postgresql-time.md).

export type StatementKind = "read" | "write" | "control";

export interface DatabaseProbeTotals {
  statements: Record<StatementKind, number>;
  /**
   * Writes to the server whose answers were waited for: on PostgreSQL one per statement, less the
   * statements that went out in the same write as one before them; none on SQLite (in-process).
   */
  roundTrips: number;
  transactions: number;
  /** Wall time from handing a statement to the driver to its answer (queueing in the driver included). */
  statementSeconds: number;
  /** Wall time spent getting a pooled connection and its BEGIN answered, for a transaction. */
  transactionStartSeconds: number;
}

const totals: DatabaseProbeTotals = {
  statements: { read: 0, write: 0, control: 0 },
  roundTrips: 0,
  transactions: 0,
  statementSeconds: 0,
  transactionStartSeconds: 0,
};

const CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const READ = /^\s*(SELECT|VALUES)\b/i;

/** A statement's kind by its first word: a write returning rows (UPDATE … RETURNING) is still a write. */
export function statementKind(text: string): StatementKind {
  if (READ.test(text)) return "read";
  return CONTROL.test(text) ? "control" : "write";
}

/** A statement answered after `seconds`; `roundTrip` when it went over the wire. */
export function countStatement(kind: StatementKind, seconds: number, roundTrip: boolean): void {
  totals.statements[kind] += 1;
  totals.statementSeconds += seconds;
  if (roundTrip) totals.roundTrips += 1;
}

/** A transaction begun after `seconds` of waiting for its connection and BEGIN (one round trip on PostgreSQL). */
export function countTransaction(seconds: number, roundTrip: boolean): void {
  totals.transactions += 1;
  totals.transactionStartSeconds += seconds;
  totals.statements.control += 1;
  if (roundTrip) totals.roundTrips += 1;
}

/** This thread's totals since it started. */
export function databaseProbeTotals(): DatabaseProbeTotals {
  return { ...totals, statements: { ...totals.statements } };
}
