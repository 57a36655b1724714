import { json } from "@remix-run/node";
import { Prisma } from "@prisma/client";
import { sql } from "../database/sql.server";

// For load balancers and the demo runner: the process is up and its database answers.
export const loader = async () => {
  try {
    await sql.rows(Prisma.sql`SELECT 1`);
    return json({ ok: true });
  } catch {
    return json({ ok: false }, { status: 503 });
  }
};
