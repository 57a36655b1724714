import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inject } from "vitest";

// Runs before each test file's imports: a private copy of the migrated database and a
// complete, valid environment, so app modules validate their config exactly as in production.
const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-file-"));
const database = path.join(dir, "test.sqlite");
copyFileSync(inject("templateDatabase"), database);

Object.assign(process.env, {
  NODE_ENV: "test",
  DATABASE_URL: `file:${database}`,
  SHOPIFY_API_KEY: "test-api-key",
  SHOPIFY_API_SECRET: "test-api-secret",
  SHOPIFY_APP_URL: "https://tag-guard.test",
  SCOPES: "read_orders,write_orders",
  SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  // Sandboxes listen on random loopback ports; the app refuses loopback unless allowed.
  CLICK_SERVICE_ALLOW_ORIGINS: "any-loopback",
  WORKER_ENABLED: "false",
  LOG_LEVEL: "silent",
});
