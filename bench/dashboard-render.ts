// The dashboard's server time end to end, for issue 59's budget ("within a tenth of today's"):
// a document request for /app?days=7 through Remix's request handler on a production build
// (authentication, the frame's and the dashboard's loaders, the server render, the whole body
// read), on a database seeded with a million orders by admin-queries.bench.ts, in English and
// in German (?locale=de), and how many i18next resolutions (t and exists on an i18next instance)
// each render still makes once the server's translators remember their answers.
//
// Two builds can be compared: each round starts a fresh process per build, in alternating
// order, so a busy machine weighs on both alike. A build from before the admin was translated
// ignores ?locale= (its German row is English) and has no i18next, so its lookups are not
// counted.
//
//   npx tsx bench/admin-queries.bench.ts --db /tmp/bench.sqlite    (seeds and keeps the database)
//   npx tsx bench/dashboard-render.ts --db /tmp/bench.sqlite --build build/server/index.js \
//     [--before OTHER/build/server/index.js] [--rounds 6] [--runs 25] [--cpu-prof DIR]
//
// Shopify's Admin API is the sandbox's stand-in (sandbox/shopify), reached as the app reaches
// Shopify; the click service URL the seeding saved does not resolve, so the key's status is
// "unreachable" at once, in both builds alike.
import { execFile } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const SHOP = "bench-shop.myshopify.com";
const API_KEY = "bench-api-key";
const API_SECRET = "bench-api-secret";
const APP_URL = "https://bench.example.com";
const LOCALES = ["en", "de"] as const;

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

interface ChildResult {
  samples: Record<string, number[]>;
  lookups: Record<string, { t: number; exists: number } | null>;
}

function env(db: string, standinUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: `file:${db}`,
    SHOPIFY_API_KEY: API_KEY,
    SHOPIFY_API_SECRET: API_SECRET,
    SHOPIFY_APP_URL: APP_URL,
    // admin-queries.bench.ts sealed the shop's settings with this key.
    SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64"),
    WORKER_ENABLED: "false",
    LOG_LEVEL: "silent",
    BENCH_STANDIN_URL: standinUrl,
  };
}

/** One build in a fresh process: warm-up, then `runs` timed requests per language. */
async function child(buildPath: string, runs: number): Promise<void> {
  const { Agent, setGlobalDispatcher } = await import("undici");
  // Shopify traffic to the stand-in, as app/platform/shopify-standin-routing.server.ts does in
  // development (it refuses production, which this bench must be: React's production build).
  const standin = new URL(process.env.BENCH_STANDIN_URL!);
  setGlobalDispatcher(
    new Agent().compose((dispatch) => (opts, handler) => {
      const from = typeof opts.origin === "string" ? new URL(opts.origin) : opts.origin;
      const host = from?.hostname.toLowerCase() ?? "";
      if (!host.endsWith(".myshopify.com")) return dispatch(opts, handler);
      const headers = { ...(opts.headers as Record<string, string>), "x-shopify-standin-shop": host, host };
      return dispatch({ ...opts, origin: standin.origin, headers }, handler);
    }),
  );
  const { createRequestHandler, installGlobals } = await import("@remix-run/node");
  const build = await import(path.resolve(buildPath));
  installGlobals({ nativeFetch: build.future.v3_singleFetch });
  const handler = createRequestHandler(build, "production");
  const inLocale: (url: string, handle: () => Promise<Response>) => Promise<Response> =
    build.entry.module.runInRequestLocale ?? ((_url, handle) => handle());
  const { signSessionToken } = await import("../sandbox/shopify/session-token");

  const request = async (locale: string) => {
    const url = `/app?days=7${locale === "en" ? "" : `&locale=${locale}`}`;
    const token = signSessionToken({ shop: SHOP, apiKey: API_KEY, secret: API_SECRET, ttlSeconds: 600 });
    const started = performance.now();
    const response = await inLocale(url, () =>
      handler(new Request(`${APP_URL}${url}`, { headers: { authorization: `Bearer ${token}` } })),
    );
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200 || !body.includes("</html>"))
      throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
    return elapsed;
  };

  // Resolutions: i18next is outside the server bundle, so its prototype is the build's own. Each
  // instance binds t and exists to itself when it is made, so the tally wraps them before the
  // first request; it counts only during the counting requests (an untimed one per language,
  // after the timed ones: what a warm process still asks i18next).
  let tally: { t: number; exists: number } | null = null;
  const i18next = await import("i18next").then(
    (module) => module.default,
    () => null,
  );
  const countable = Boolean(i18next && build.entry.module.runInRequestLocale);
  if (countable) {
    const prototype = Object.getPrototypeOf(i18next) as Record<string, (...a: unknown[]) => unknown>;
    for (const name of ["t", "exists"] as const) {
      const original = prototype[name]!;
      prototype[name] = function (this: unknown, ...a: unknown[]) {
        if (tally) tally[name]++;
        return original.apply(this, a);
      };
    }
  }
  const counting = async (locale: string) => {
    if (!countable) return null;
    const counted = { t: 0, exists: 0 };
    tally = counted;
    try {
      await request(locale);
    } finally {
      tally = null;
    }
    return counted;
  };

  const result: ChildResult = { samples: {}, lookups: {} };
  for (const locale of LOCALES) for (let i = 0; i < 5; i++) await request(locale);
  for (const locale of LOCALES) result.samples[locale] = [];
  // Languages interleaved too, request by request.
  for (let i = 0; i < runs; i++) for (const locale of LOCALES) result.samples[locale]!.push(await request(locale));
  for (const locale of LOCALES) result.lookups[locale] = await counting(locale);
  console.log(`RESULT ${JSON.stringify(result)}`);
  process.exit(0);
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function parent(): Promise<void> {
  const db = option("db");
  const now = option("build") ?? "build/server/index.js";
  const before = option("before");
  const rounds = Number(option("rounds") ?? 6);
  const runs = Number(option("runs") ?? 25);
  if (!db) throw new Error("--db FILE: a database admin-queries.bench.ts seeded (--db keeps it)");
  const { startShopifyStandin } = await import("../sandbox/shopify");
  const standin = await startShopifyStandin({ apiKey: API_KEY, appSecret: API_SECRET });
  // The shop's offline session, with a token the stand-in issued: no token exchange per request.
  const token = standin.issueToken(SHOP, { scope: ["read_orders", "write_orders"] }).token;
  const sqlite = new Database(db);
  sqlite
    .prepare(
      `INSERT OR REPLACE INTO "Session" (id, shop, state, isOnline, scope, accessToken) VALUES (?, ?, '', 0, ?, ?)`,
    )
    .run(`offline_${SHOP}`, SHOP, "read_orders,write_orders", token);
  sqlite.close();

  const builds: [string, string][] = before
    ? [
        ["before", before],
        ["now", now],
      ]
    : [["now", now]];
  // --cpu-prof DIR: each child writes a V8 CPU profile there (the largest file is the server's).
  const profiles = option("cpu-prof");
  const childEnv = (file: string, standinUrl: string): NodeJS.ProcessEnv => {
    const base = env(file, standinUrl);
    if (!profiles) return base;
    const prof = `--cpu-prof --cpu-prof-dir=${path.resolve(profiles)}`;
    return { ...base, NODE_OPTIONS: `${base.NODE_OPTIONS ?? ""} ${prof}`.trim() };
  };
  const samples = new Map<string, number[]>();
  const lookups = new Map<string, ChildResult["lookups"][string]>();
  const self = fileURLToPath(import.meta.url);
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const [name, buildPath] of order) {
        // Not spawnSync: the stand-in answering the child's Admin API calls lives in this process.
        const ran = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
          execFile(
            "npx",
            ["tsx", self, "--child", buildPath, "--runs", String(runs)],
            { env: childEnv(path.resolve(db), standin.url), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
            (_error, stdout, stderr) => resolve({ stdout, stderr }),
          ),
        );
        const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT "));
        if (!line) throw new Error(`${name} failed:\n${ran.stdout}\n${ran.stderr}`);
        const result = JSON.parse(line.slice("RESULT ".length)) as ChildResult;
        for (const locale of LOCALES) {
          const key = `${name} ${locale}`;
          samples.set(key, [...(samples.get(key) ?? []), ...result.samples[locale]!]);
          lookups.set(key, result.lookups[locale] ?? null);
        }
        console.log(
          `round ${round + 1} ${name}: load average ${loadavg()
            .map((l) => l.toFixed(2))
            .join(" ")}`,
        );
      }
    }
  } finally {
    await standin.close();
  }
  console.log(`\nGET /app?days=7, ${rounds} rounds x ${runs} requests per build and language:`);
  console.log(`| build | language | p50 | p95 | i18next resolutions per warm render (t / exists) |`);
  console.log(`|---|---|---|---|---|`);
  for (const [key, values] of samples) {
    const [name, locale] = key.split(" ");
    const counts = lookups.get(key);
    console.log(
      `| ${name} | ${locale} | ${quantile(values, 0.5).toFixed(1)} ms | ${quantile(values, 0.95).toFixed(1)} ms | ${counts ? `${counts.t} / ${counts.exists}` : "-"} |`,
    );
  }
}

if (args[0] === "--child") await child(args[1]!, Number(option("runs") ?? 25));
else await parent();
