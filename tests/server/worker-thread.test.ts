import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  START_TIMEOUT_MS,
  startApp,
  stopTimeoutMs,
  type AppProcess,
  type AppServer,
} from "../../sandbox/demo/app-process";
import { signWebhook } from "../../sandbox/shopify";
import { API_VERSION } from "../support/deliver";

// The server (`npm start`, and `npm run dev` on the sources) runs the verification worker on a
// thread of its own (decision 019): the worker starts there, not beside intake, and a SIGTERM
// ends the thread and the process cleanly, without the kill that follows a stop that hangs.

const ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * How long after start-up the worker may take to say it started: on the sources, Vite compiles
 * it first. Usually a few seconds; generous for a loaded two-core machine.
 */
const WORKER_STARTS_WITHIN_MS = 60_000;
/** Each test's own time: the app's start, its worker's, and its stop, each within its bound. */
const TEST_TIMEOUT_MS = START_TIMEOUT_MS + WORKER_STARTS_WITHIN_MS + stopTimeoutMs({});

function serveBuild(env: Record<string, string>, server: AppServer = "build"): Promise<AppProcess> {
  if (server === "build" && !existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("no app build: run `npx remix vite:build` (global setup does)");
  return startApp(
    {
      NODE_ENV: "test",
      DATABASE_URL: process.env.DATABASE_URL!,
      SHOPIFY_API_KEY: "worker-thread-api-key",
      SHOPIFY_API_SECRET: "worker-thread-api-secret",
      WORKER_ENABLED: "true",
      LOG_LEVEL: "info",
      NODE_OPTIONS: "",
      ...env,
    },
    () => {},
    [],
    "healthy",
    server,
  );
}

/** The app's structured log lines with this message. */
function logged(app: AppProcess, message: string): Record<string, unknown>[] {
  return app
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === message);
}

describe("the production server's worker thread", () => {
  const running: AppProcess[] = [];
  afterEach(async () => {
    for (const app of running.splice(0)) await app.kill();
  });

  it.each(["build", "dev"] as const)(
    "runs the worker on a thread of its own and stops it, and the process, on SIGTERM (%s)",
    { timeout: TEST_TIMEOUT_MS },
    async (server) => {
      const app = await serveBuild({}, server);
      running.push(app);
      await expect
        .poll(() => logged(app, "background worker started"), { timeout: WORKER_STARTS_WITHIN_MS })
        .toHaveLength(1);
      expect(logged(app, "background worker started")[0]).toMatchObject({ thread: true });
      // Webhook intake answers before Remix on either: a forged delivery is refused by the lane,
      // which Remix's access log never sees (it logs the health checks start-up made).
      const body = JSON.stringify({ id: 1 });
      const response = await fetch(`${app.url}/webhooks/orders/create`, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-shopify-hmac-sha256": signWebhook(body, "not-the-secret"),
          "x-shopify-topic": "orders/create",
          "x-shopify-shop-domain": "worker-thread.myshopify.com",
          "x-shopify-api-version": API_VERSION,
          "x-shopify-webhook-id": "wh-worker-thread",
        },
      });
      expect(response.status).toBe(401);
      expect(app.output()).toMatch(/GET \/healthz 200/);
      expect(app.output()).not.toMatch(/POST \/webhooks\/orders\/create/);
      // Under Vite, its own compiler (Remix's plugin starts one) ends the process on SIGTERM
      // with 128 + 15, as `remix vite:dev` does; the jobs a stop cuts short are taken again when
      // their leases run out.
      expect(await app.stop()).toEqual({ code: server === "dev" ? 143 : 0, signal: null });
      expect(logged(app, "the worker thread exited; stopping the server")).toEqual([]);
    },
  );

  it("keeps the worker beside intake with WORKER_THREAD=false", { timeout: TEST_TIMEOUT_MS }, async () => {
    const app = await serveBuild({ WORKER_THREAD: "false" });
    running.push(app);
    await expect
      .poll(() => logged(app, "background worker started"), { timeout: WORKER_STARTS_WITHIN_MS })
      .toHaveLength(1);
    expect(logged(app, "background worker started")[0]).toMatchObject({ thread: false });
    expect(await app.stop()).toEqual({ code: 0, signal: null });
  });
});
