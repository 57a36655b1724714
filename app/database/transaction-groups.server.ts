import { Prisma } from "@prisma/client";
import type { Sql } from "./sql.server";

// Small transactions that become ready together share one (a group commit), each in a savepoint
// of its own. On SQLite every commit writes the pages it changed to the log again, and the
// worker's jobs change the same index pages (the queue's, the orders'), so a group of them
// costs one BEGIN, one COMMIT and one copy of those pages instead of one each (decision 021).
//
// A member's work is all or nothing, as in a transaction of its own: when it throws, the group
// rolls back to its savepoint and the member gets its error; the others go on. Nobody hears
// "done" before the group's COMMIT. When the transaction itself fails (the COMMIT, or an error
// after which SQLite has already rolled everything back), every member of the group gets that
// error, as each would have from a transaction of its own. Past a first few members, a group
// ends early when someone else waits to write (the caller says how to tell).

/** Runs a function in one transaction: sql.transaction, or a stand-in in tests. */
export type Transact = <T>(fn: (tx: Sql) => Promise<T>) => Promise<T>;

interface Member {
  work: (tx: Sql) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const SAVEPOINT = Prisma.raw(`SAVEPOINT "member"`);
const RELEASE = Prisma.raw(`RELEASE "member"`);
const ROLLBACK = Prisma.raw(`ROLLBACK TO "member"`);

export class TransactionGroups {
  #waiting: Member[] = [];
  #draining = false;

  /**
   * A group takes up to `bound.most` members. Once it has `bound.least`, it ends as soon as
   * `wanted()` says someone waits to write: the database has a single writer, and they wait
   * for the group, so a group is long only while nobody is waiting.
   */
  constructor(
    private readonly transact: Transact,
    private readonly bound: { least: number; most: number },
    private readonly wanted: () => boolean = () => false,
  ) {}

  /** Runs `work` in the next group to start; resolves once that group has committed. */
  run<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#draining) return;
      this.#draining = true;
      // A turn of the event loop first, so the work that became ready in this one joins.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#commitGroup();
    } finally {
      this.#draining = false;
    }
  }

  async #commitGroup(): Promise<void> {
    let members: Member[] | null = null;
    const succeeded: { member: Member; value: unknown }[] = [];
    try {
      await this.transact(async (tx) => {
        // Taken once the transaction has begun: whatever arrived while it waited for the writer joins.
        members = [];
        while (this.#waiting.length > 0 && members.length < this.bound.most) {
          if (members.length >= this.bound.least && this.wanted()) break;
          const member = this.#waiting.shift()!;
          members.push(member);
          await tx.execute(SAVEPOINT);
          let value: unknown;
          try {
            value = await member.work(tx);
          } catch (error) {
            // Should the transaction itself be gone, this throws, and the whole group fails below.
            await tx.execute(ROLLBACK);
            await tx.execute(RELEASE);
            member.reject(error);
            continue;
          }
          await tx.execute(RELEASE);
          succeeded.push({ member, value });
        }
      });
    } catch (error) {
      // A transaction that could not even begin fails the group that would have run in it.
      // (A member already answered keeps its own error: a promise settles once.)
      for (const member of members ?? this.#waiting.splice(0, this.bound.most)) member.reject(error);
      return;
    }
    for (const { member, value } of succeeded) member.resolve(value);
  }
}
