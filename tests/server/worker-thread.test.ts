import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "../../sandbox/demo/app-process";

// The production server (`npm start`) runs the verification worker on a thread of its own
// (decision 019): the worker starts there, not beside intake, and a SIGTERM ends the thread and
// the process cleanly, without the kill that follows a stop that hangs.

const ROOT = path.resolve(import.meta.dirname, "../..");

function serveBuild(env: Record<string, string>): Promise<AppProcess> {
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
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

  it("runs the worker on a thread of its own and stops it, and the process, on SIGTERM", async () => {
    const app = await serveBuild({});
    running.push(app);
    await expect.poll(() => logged(app, "background worker started"), { timeout: 30_000 }).toHaveLength(1);
    expect(logged(app, "background worker started")[0]).toMatchObject({ thread: true });
    expect(await app.stop()).toEqual({ code: 0, signal: null });
    expect(logged(app, "the worker thread exited; stopping the server")).toEqual([]);
  });

  it("keeps the worker beside intake with WORKER_THREAD=false", async () => {
    const app = await serveBuild({ WORKER_THREAD: "false" });
    running.push(app);
    await expect.poll(() => logged(app, "background worker started"), { timeout: 30_000 }).toHaveLength(1);
    expect(logged(app, "background worker started")[0]).toMatchObject({ thread: false });
    expect(await app.stop()).toEqual({ code: 0, signal: null });
  });
});
