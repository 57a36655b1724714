import { AsyncLocalStorage } from "node:async_hooks";

// A database transaction must never wait on the network: on SQLite it holds the only writer of
// both threads, on PostgreSQL its row and advisory locks (docs/database.md). The database's
// transactions run their bodies in this scope, and the clients of the click service and of
// Shopify's Admin API refuse to start a call inside one, so a change that breaks the rule fails
// its first test instead of stalling every writer under load.
//
// Checked in development and under the test runner only: on Node 22 an AsyncLocalStorage in
// use puts a hook on every promise of the process, which cost end to end about a tenth of its
// orders a second (decision 025). A rule about the code's shape needs no checking at run time
// once the tests that reach each transaction hold it.
const checked = process.env.NODE_ENV === "development" || process.env.VITEST === "true";

const scope = checked ? new AsyncLocalStorage<true>() : null;

/** Runs `body` as a database transaction's: the network clients refuse calls made from it. */
export function transactionBody<T>(body: () => T): T {
  return scope ? scope.run(true, body) : body();
}

/** Throws when called, however indirectly, from a database transaction's body. */
export function refuseInsideTransaction(call: string): void {
  if (scope?.getStore())
    throw new Error(`${call} was called inside a database transaction; make the call before or after it`);
}
