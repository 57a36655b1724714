import { Prisma } from "@prisma/client";
import { sql } from "./sql.server";

// Whether the database answers now: for the health check and the admin, which tell a merchant
// (or a load balancer) that it does not, rather than fail on it or wait on it.

/** How long a trivial statement may take before the database counts as not answering. */
export const DATABASE_ANSWER_MS = 2_000;

export async function databaseAnswers(timeoutMs = DATABASE_ANSWER_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answer = sql.rows(Prisma.sql`SELECT 1`).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
