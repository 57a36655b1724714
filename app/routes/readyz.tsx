import { json } from "@remix-run/node";
import { readiness } from "../instance/readiness.server";

// For load balancers: 200 while this instance takes traffic (its database answers, its
// migrations are the build's, it is not stopping), 503 otherwise, with which of the three is
// wrong. /healthz is the liveness check (app/instance/readiness.server.ts says how they differ).
export const loader = () => {
  const now = readiness();
  return json(now, { status: now.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
};
