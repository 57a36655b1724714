import { startApp, type AppProcess } from "../../sandbox/demo/app-process";

/**
 * The built app for a browser suite, started as a host starts it: on this test file's own
 * migrated database and with this process's sealing key (so each reads what the other sealed),
 * Shopify traffic sent to the stand-in (the app's own development setting), no worker.
 */
export function startBuiltApp(
  shopify: { apiKey: string; apiSecret: string; standinUrl: string },
  /** More environment for this suite (SCOPES, say). */
  env: Record<string, string> = {},
): Promise<AppProcess> {
  return startApp(
    {
      NODE_ENV: "test",
      DATABASE_URL: process.env.DATABASE_URL!,
      SHOPIFY_API_KEY: shopify.apiKey,
      SHOPIFY_API_SECRET: shopify.apiSecret,
      SETTINGS_ENCRYPTION_KEY: process.env.SETTINGS_ENCRYPTION_KEY!,
      WORKER_ENABLED: "false",
      LOG_LEVEL: "error",
      SHOPIFY_STANDIN_URL: shopify.standinUrl,
      // No TypeScript preload: on Node 20 a cold-cache tsx transform inside the server
      // deadlocked start-up.
      NODE_OPTIONS: "",
      ...env,
    },
    () => {},
  );
}
