import type { Prisma } from "@prisma/client";
import { vi } from "vitest";
import { sql } from "../../app/database/sql.server";

/** The statements `run` sends through sql.rows, each still run: what a page's loader asks the database. */
export async function statementsOf(run: () => Promise<unknown>): Promise<Prisma.Sql[]> {
  const caught: Prisma.Sql[] = [];
  const rows = sql.rows.bind(sql);
  const spy = vi.spyOn(sql, "rows").mockImplementation((query: Prisma.Sql) => {
    caught.push(query);
    return rows(query);
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return caught;
}
