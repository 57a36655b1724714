import { setReady } from "../metrics/registry.server";
import { logger } from "../platform/logger.server";

// Whether this instance takes traffic: what /readyz answers (200 or 503) and `tagguard_ready`
// reports. /healthz stays the liveness check (the process is up and its database answers): a
// platform restarts an instance that fails it, and routes requests only to instances that pass
// this one. Ready means all three:
// - its database answers (the monitor's last probe, app/database/availability.server.ts);
// - its database's migrations are the build's (checked at start, app/instance/start.server.ts);
// - it is not stopping: from the stop signal on it fails readiness while it still serves, so a
//   load balancer sends the next requests elsewhere before it stops accepting them (server.mjs).

export interface Readiness {
  ready: boolean;
  database: "up" | "down";
  migrations: "unknown" | "current" | "behind";
  stopping: boolean;
}

interface State {
  databaseUp: boolean;
  migrations: Readiness["migrations"];
  stopping: boolean;
  wasReady: boolean;
}

declare global {
  // Development reloads modules; the instance's state belongs to the process.
  var instanceReadiness: State | undefined;
}

const state = (globalThis.instanceReadiness ??= {
  databaseUp: true,
  migrations: "unknown",
  stopping: false,
  wasReady: false,
});

export function readiness(): Readiness {
  return {
    ready: state.databaseUp && state.migrations === "current" && !state.stopping,
    database: state.databaseUp ? "up" : "down",
    migrations: state.migrations,
    stopping: state.stopping,
  };
}

/** Updates one part of the state, and says so when readiness changes. */
export function noteReadiness(change: Partial<Omit<State, "wasReady">>): void {
  Object.assign(state, change);
  const now = readiness();
  setReady(now.ready);
  if (now.ready === state.wasReady) return;
  state.wasReady = now.ready;
  if (now.ready) logger.info("instance.ready", "ready: the database answers and its migrations are current");
  else if (!now.stopping)
    logger.warn("instance.not_ready", "not ready: the database does not answer", { database: now.database });
}
