import { z } from "zod";
import { databaseDialect, databaseUrl } from "./database-url";

// The environment is read and checked once, at start-up. A bad deploy fails with one
// message naming every missing or malformed variable instead of a confusing error later.

const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

const sealingKey = z
  .string()
  .refine(
    (value) => Buffer.from(value, "base64").length === 32,
    "must be 32 bytes, base64-encoded (openssl rand -base64 32)",
  );

/** CLICK_SERVICE_ALLOW_ORIGINS value that lets the service be any loopback origin (test suites). */
export const ANY_LOOPBACK = "any-loopback";

// Development only: the click-service origins that may point at this machine (a local
// sandbox). Exact origins, so a merchant-typed URL cannot reach the machine's other ports.
const allowedOrigins = z
  .string()
  .optional()
  .transform((value, context): ReadonlySet<string> | "any" => {
    const entries = (value ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.includes(ANY_LOOPBACK)) return "any";
    const origins = new Set<string>();
    for (const entry of entries) {
      const url = URL.canParse(entry) ? new URL(entry) : null;
      const exact =
        url && /^https?:$/.test(url.protocol) && url.pathname === "/" && !url.search && !url.hash && !url.username;
      if (!url || !exact) {
        context.addIssue({
          code: "custom",
          message: `"${entry}" is not an origin such as http://127.0.0.1:4555 (scheme, host and port only), or ${ANY_LOOPBACK}`,
        });
        continue;
      }
      origins.add(url.origin);
    }
    return origins;
  });

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  SHOPIFY_API_KEY: z.string().min(1, "is required (the app's client id)"),
  SHOPIFY_API_SECRET: z.string().min(1, "is required (the app's client secret)"),
  SHOPIFY_APP_URL: z.url("must be the app's public https URL"),
  SCOPES: z.string().default("read_orders,write_orders,write_pixels,read_customer_events"),
  DATABASE_URL: z
    .string()
    .refine(
      (url) => databaseDialect(url) !== null,
      "must be a SQLite file URL (file:./data/app.sqlite) or a PostgreSQL URL (postgresql://user:password@host:5432/database)",
    ),
  // PostgreSQL connections the process opens at most, split between intake's thread and the
  // worker's when it has one; unset, each thread's pool opens up to node-postgres's 10.
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).optional(),
  SETTINGS_ENCRYPTION_KEY: sealingKey,
  SETTINGS_ENCRYPTION_KEY_PREVIOUS: sealingKey.optional(),
  SHOPIFY_STANDIN_URL: z.url("must be the URL of the local Shopify stand-in").optional(),
  CLICK_SERVICE_ALLOW_ORIGINS: allowedOrigins,
  // Development and tests only: every PayPal API call (sandbox and live alike) goes to this
  // origin, the PayPal stand-in (sandbox/paypal); refused in production.
  PAYPAL_API_ORIGIN: z.url("must be the URL of the local PayPal stand-in").optional(),
  WORKER_ENABLED: booleanFlag.default(true),
  // The worker on a thread of its own, on the second core (decision 019), started by the server
  // (server.mjs) in development and production alike; false keeps it on the main thread.
  WORKER_THREAD: booleanFlag.default(true),
  // Measured (docs/lab/throughput-notes.md, "The worker"): at 4 and 16 the worker verifies the
  // same 32 orders/s on two cores, but at 16 the slowest orders wait less (p99 17 s against
  // 45 s), at the same memory.
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(16),
  // While webhooks arrive, the worker runs fewer jobs when the loop runs late (decision 014) and
  // works only on the loop's idle time (decision 018).
  WORKER_INTAKE_FIRST: booleanFlag.default(true),
  WORKER_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  // How long a crashed instance's jobs wait before another takes them over. Renewed every third
  // of it while a job runs, so it must outlast the longest pause an instance can have.
  WORKER_LEASE_MS: z.coerce
    .number()
    .int()
    .min(5_000)
    .max(3_600_000)
    .default(2 * 60_000),
  // The reconciliation sweep (app/reconciliation): how often each shop's orders are listed, and
  // how far behind real time the listing stays, so that a webhook still on its way (Shopify's
  // first retries, the search index catching up) is not raced by the sweep.
  RECONCILE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .default(5 * 60_000),
  RECONCILE_LAG_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(2 * 60_000),
  // Store credit and gift cards (app/payouts/shopify-steps.ts): how long after an attempt whose
  // answer was lost the app reads Shopify before it may send again, so Shopify's listings have
  // caught up with whatever the attempt made.
  PAYOUT_LOOK_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(3_600_000)
    .default(2 * 60_000),
  WEBHOOK_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(100 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  // All webhook bodies not yet vouched for by their signatures, together (body-budget.ts): room
  // for six at the cap, or some 25,000 orders of 1.3 KB, at once.
  WEBHOOK_BODY_BYTES_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(32 * 1024 * 1024),
  // How long a webhook body has to arrive whole (default BODY_DEADLINE_MS, 5 s, Shopify's own
  // wait). Below the server's 30 s requestTimeout, so the body's own 408 always comes first.
  WEBHOOK_BODY_DEADLINE_MS: z.coerce.number().int().min(1_000).max(25_000).optional(),
  // Proxies of the app's own (a load balancer) between Shopify and the app that append to
  // X-Forwarded-For: the shopper's address is the entry Shopify's app proxy wrote, this many
  // from the end (platform/network-source.ts).
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(5).default(0),
  LOG_LEVEL: z.enum(["silent", "error", "warn", "info", "debug"]).default("info"),
  // Prometheus's endpoint (GET /metrics) on a port of its own, never the public one; off when
  // unset. Loopback by default: open it (0.0.0.0, ::) only to the scraper's network.
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  // After a stop signal, how long the instance keeps serving while /readyz answers 503, so that a
  // load balancer polling readiness stops sending it requests before it stops accepting them.
  // 0 where the platform stops routing before it signals (Cloud Run).
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
});

export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const blankAsMissing = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  const result = EnvSchema.safeParse({ ...blankAsMissing, DATABASE_URL: databaseUrl(source) });
  if (!result.success) {
    throw new EnvError(result.error.issues.map((issue) => `${issue.path.join(".")} ${describe(issue)}`));
  }
  const env = result.data;
  if (env.WEBHOOK_BODY_BYTES_IN_FLIGHT < env.WEBHOOK_MAX_BODY_BYTES)
    throw new EnvError([
      "WEBHOOK_BODY_BYTES_IN_FLIGHT must be at least WEBHOOK_MAX_BODY_BYTES: a body at the cap could never be read",
    ]);
  const publicPort = Number(source.PORT ?? 3000);
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === publicPort)
    throw new EnvError([
      `METRICS_PORT must differ from PORT (${publicPort}): the metrics are never served on the public port`,
    ]);
  const refusedInProduction: string[] = [];
  if (env.NODE_ENV === "production" && env.SHOPIFY_STANDIN_URL)
    refusedInProduction.push("SHOPIFY_STANDIN_URL must not be set in production: it reroutes Shopify traffic");
  if (env.NODE_ENV === "production" && env.PAYPAL_API_ORIGIN)
    refusedInProduction.push("PAYPAL_API_ORIGIN must not be set in production: it sends PayPal credentials elsewhere");
  if (env.NODE_ENV === "production" && blankAsMissing.CLICK_SERVICE_ALLOW_ORIGINS !== undefined)
    refusedInProduction.push(
      "CLICK_SERVICE_ALLOW_ORIGINS must not be set in production: it lets merchants' service URLs reach this machine",
    );
  if (refusedInProduction.length > 0) throw new EnvError(refusedInProduction);
  return env;
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
  return issue.message;
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
