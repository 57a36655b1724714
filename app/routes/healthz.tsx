import { json } from "@remix-run/node";
import prisma from "../database/db.server";

// For load balancers and the demo runner: the process is up and its database answers.
export const loader = async () => {
  try {
    await prisma.$queryRaw`SELECT 1`;
    return json({ ok: true });
  } catch {
    return json({ ok: false }, { status: 503 });
  }
};
