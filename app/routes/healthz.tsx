import { json } from "@remix-run/node";
import { databaseAnswers } from "../database/availability.server";

// For load balancers and the demo runner: the process is up and its database answers.
export const loader = async () =>
  (await databaseAnswers()) ? json({ ok: true }) : json({ ok: false }, { status: 503 });
