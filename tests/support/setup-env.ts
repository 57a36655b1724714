import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inject } from "vitest";
import type { PostgresqlTestServer } from "./postgresql-setup";

// Runs before each test file's imports: a private copy of the migrated database and a
// complete, valid environment, so app modules validate their config exactly as in production.
// SQLite (the "unit" project) copies the template file; the "postgresql" project creates the
// file's own database from the migrated template database.

function sqliteCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-file-"));
  const database = path.join(dir, "test.sqlite");
  copyFileSync(inject("templateDatabase"), database);
  return `file:${database}`;
}

async function postgresqlCopy({ serverUrl, template, prefix }: PostgresqlTestServer): Promise<string> {
  const { onServer, postgresqlDatabaseUrl } = await import("../../sandbox/postgresql");
  const database = `${prefix}_${randomBytes(6).toString("hex")}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${database}" TEMPLATE "${template}"`));
  return postgresqlDatabaseUrl(serverUrl, database);
}

const postgresql = inject("postgresql");

Object.assign(process.env, {
  NODE_ENV: "test",
  DATABASE_URL: postgresql ? await postgresqlCopy(postgresql) : sqliteCopy(),
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

// Property tests replay: in CI every generated case comes from one fixed seed (FC_SEED overrides
// it, as does any run that wants to replay a failure fast-check printed with its seed and path),
// so a run that fails once fails again the same way. Locally each run draws afresh.
if (process.env.CI === "true" || process.env.FC_SEED) {
  const { default: fc } = await import("fast-check");
  fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261127) });
}

// The app's t() answers in English outside a request, as the server's own entry arranges
// (app/i18n/translators.server.ts): suites that call components and loaders directly read English.
await import("../../app/i18n/translators.server");
