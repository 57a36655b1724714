import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClicks, orderDelivery, registerOrders, type OrderDelivery } from "../../bench/deliveries";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { APP_ENV, APP_SCOPES } from "../../sandbox/demo/app-process";
import { saveSettings } from "../../sandbox/demo/run-scenario";
import { DEFAULT_SCENARIO_SETTINGS } from "../../sandbox/demo/scenario";
import { freePort } from "../../sandbox/listen";
import { onServer, postgresqlDatabaseUrl } from "../../sandbox/postgresql";
import { scrape, total, type Sample } from "../../sandbox/prometheus";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { startBalancer, type Balancer } from "../support/balancer";
import { readCompose, readEnvFile, serviceEnvironment, type ComposeFile } from "../support/compose";
import { containerEnv, isFolder, playStage, readDockerfile, type PlayedStage } from "../support/dockerfile";
import { postgresqlBinaries, startCluster, type Cluster } from "../support/postgresql-cluster";
import { ROOT } from "../support/scratch-copy";

// The image, without a container runtime: the Dockerfile's stages played in a scratch folder
// from the build context (the repository's files as .dockerignore leaves them, as a fresh clone
// holds them). The deps stage's production-only `npm ci` runs for real (from npm's cache); the
// build stage, `npm ci` and `npm run build`, is the repository's own build, which the "build"
// project's global setup makes from the same sources. Then, from the run stage's folder, which
// holds no development dependency (nothing above it has a node_modules either):
// - `docker run` on the SQLite default: the release step, the server (`npm start`'s command), readiness, a signed
//   orders/create verified against the stand-ins, and nothing written outside the data volume;
// - compose.yaml's services on one PostgreSQL database: its migrate service, two web instances
//   and a worker with the environment it gives them; the delivery, the job and the verify-click
//   call in their metrics; and a rolling restart behind a load balancer routing on /readyz, with
//   no delivery refused.
// Differences from a container, all of them here: the stand-ins need NODE_ENV=test (production
// refuses them, app/platform/env.server.ts), ports and hosts are the machine's, the image's user
// and its chown do not exist here, and compose's PostgreSQL is a throwaway cluster.

const binaries = postgresqlBinaries();
const scratch = mkdtempSync(path.join(tmpdir(), "tag-guard-image-"));
const apiKey = randomBytes(16).toString("hex");
const apiSecret = randomBytes(32).toString("hex");
const sealingKey = randomBytes(32).toString("base64");
const timings: Record<string, number> = {};

let image: PlayedStage;
let clicks: RunningClickService;
let shopify: ShopifyStandin;
const processes: Instance[] = [];

/** How long `work` took, kept for the report at the end of the file. */
async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[name] = Math.round((Date.now() - started) / 100) / 10;
  }
}

beforeAll(async () => {
  for (let dir = path.dirname(scratch); dir !== path.dirname(dir); dir = path.dirname(dir))
    if (existsSync(path.join(dir, "node_modules")))
      throw new Error(`${dir} has a node_modules the image's folder would resolve modules from`);
  const stages = readDockerfile();
  expect(stages.map((stage) => stage.name)).toEqual(["base", "manifests", "deps", "build", "run"]);
  // The build stage is stood in for by the repository's own build: it must do exactly what the
  // global setup did (package.json's build script is what ensureBuild runs).
  const build = stages.find((stage) => stage.name === "build")!;
  expect(build.instructions.filter((i) => i.op === "RUN").map((i) => i.args)).toEqual([
    "npm ci --no-audit --no-fund",
    "npm run build",
  ]);
  expect(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.build).toBe("remix vite:build");
  expect(existsSync(path.join(ROOT, "build/server/index.js"))).toBe(true);

  const played = new Map<string, PlayedStage>();
  const options = { scratch, played, runEnv: { npm_config_prefer_offline: "true" } };
  played.set("base", await playStage(stages, "base", options));
  played.set("manifests", await playStage(stages, "manifests", options));
  played.set("deps", await timed("deps stage (npm ci --omit=dev)", () => playStage(stages, "deps", options)));
  played.set("build", { dir: ROOT, env: {}, user: null, exposed: [], volumes: [], healthcheck: null, cmd: null });
  image = await timed("run stage", () => playStage(stages, "run", options));

  clicks = await startClickService();
  shopify = await startShopifyStandin({ apiKey, appSecret: apiSecret, scopes: APP_SCOPES });
}, 600_000);

afterAll(async () => {
  await Promise.all(processes.map((instance) => instance.kill()));
  await clicks?.close();
  await shopify?.close();
  rmSync(scratch, { recursive: true, force: true });
  console.log(`image steps, seconds: ${JSON.stringify(timings)}`);
});

interface Instance {
  url: string;
  metricsUrl: string;
  output(): string;
  /** The signal the image's stop sends (SIGTERM), and how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): Promise<unknown>;
}

/** The image's CMD (`npm start`'s command) from the run stage's folder, with `env` over the image's own. */
async function startImage(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const metricsPort = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(image.cmd![0]!, image.cmd!.slice(1), {
    cwd: image.dir,
    env: containerEnv(image.env, env, {
      PORT: String(port),
      HOST: "127.0.0.1",
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: "127.0.0.1",
      SHOPIFY_APP_URL: env.SHOPIFY_APP_URL ?? url,
    }) as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const instance: Instance = {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    output: () => output,
    stop: () => {
      child.kill("SIGTERM");
      return exit;
    },
    kill: () => {
      child.kill("SIGKILL");
      return exit;
    },
  };
  processes.push(instance);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return instance;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the image did not become ready (readyz ${status}):\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A command of the image (the release step) in the run stage's folder; its exit code and output. */
function runInImage(command: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd: image.dir,
      env: containerEnv(image.env, env) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** What the stand-ins need of the app: their keys, Shopify's traffic sent to the stand-in, the sandbox service allowed. */
function standinEnv(): Record<string, string> {
  return {
    NODE_ENV: "test",
    SHOPIFY_API_KEY: apiKey,
    SHOPIFY_API_SECRET: apiSecret,
    SETTINGS_ENCRYPTION_KEY: sealingKey,
    SCOPES: APP_SCOPES,
    SHOPIFY_STANDIN_URL: shopify.url,
    CLICK_SERVICE_ALLOW_ORIGINS: clicks.url,
  };
}

/** A hijacked order: its click's creator expected alice-20, the cart arrived with honey-77. */
async function hijackedOrder(shop: string): Promise<OrderDelivery> {
  const [clickId] = await createClicks(clicks.url, 1);
  const order = orderDelivery({ shop, secret: apiSecret, clickId: clickId!, arrivedTag: "honey-77" });
  await registerOrders(shopify.url, [order]);
  return order;
}

async function deliver(url: string, order: OrderDelivery): Promise<number> {
  const response = await fetch(`${url}/webhooks/orders/create`, {
    method: "POST",
    headers: order.headers,
    body: order.body,
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}

async function installShop(appUrl: string, shop: string): Promise<void> {
  await saveSettings(
    { appUrl, shop, apiKey, apiSecret, clickServiceUrl: clicks.url, clickServiceApiKey: clicks.createApiKey() },
    DEFAULT_SCENARIO_SETTINGS,
  );
}

/** Every file under `dir` but `except`, with its size and time: what a run wrote there shows. */
function snapshot(dir: string, except: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (full === except) continue;
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full);
        files.set(path.relative(dir, full), `${stat.size} ${stat.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return files;
}

describe("the image's run stage", () => {
  it("holds the build and production dependencies only, runs as a user that is not root, and declares its port, volume, health check and command", () => {
    // What `npm start` runs (tests/structure/start-command.test.ts), without npm in between: env
    // sets the process's environment (decision 046) and becomes node.
    const environment = Object.entries(APP_ENV).map(([name, value]) => `${name}=${value}`);
    expect(image.cmd!.slice(0, environment.length + 2)).toEqual(["env", ...environment, "node"]);
    expect(image.cmd).toContain("server.mjs");
    expect(image.user).toBeTruthy();
    expect(["root", "0"]).not.toContain(image.user!.split(":")[0]);
    expect(image.env).toMatchObject({ NODE_ENV: "production", PORT: "3000" });
    expect(image.exposed).toEqual(["3000"]);
    expect(image.volumes).toEqual(["/app/data"]);
    expect(image.healthcheck?.join(" ")).toContain("/healthz");
    // Nothing npm's lockfile marks as needed for development only (a production dependency's
    // peers, TypeScript among them, are not); every production dependency.
    const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([where, entry]) => where.startsWith("node_modules/") && entry.dev)
      .map(([where]) => where);
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter((where) => isFolder(path.join(image.dir, where)))).toEqual([]);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const installed = (name: string) => isFolder(path.join(image.dir, "node_modules", name));
    expect(Object.keys(pkg.dependencies).filter((name) => !installed(name))).toEqual([]);
    expect(readdirSync(image.dir).sort()).toEqual(
      [
        "app",
        "build",
        "data",
        "node_modules",
        "package-lock.json",
        "package.json",
        "prisma",
        "prisma.config.ts",
        "server.mjs",
      ].sort(),
    );
    expect(existsSync(path.join(image.dir, "build/bench"))).toBe(false);
  });

  it(
    "on its SQLite volume: the release step migrates, the server becomes ready, a signed orders/create is verified against the stand-ins, and nothing is written outside the volume",
    { timeout: 300_000 },
    async () => {
      const data = path.join(image.dir, "data");
      const before = snapshot(image.dir, data);
      const env = { ...standinEnv(), LOG_LEVEL: "info" };
      const setup = await timed("release step, SQLite", () =>
        runInImage(["npm", "run", "setup"], { SETTINGS_ENCRYPTION_KEY: sealingKey }),
      );
      expect(setup.code, setup.output).toBe(0);
      expect(existsSync(path.join(data, "app.sqlite"))).toBe(true);

      const app = await timed("start until ready, SQLite", () => startImage(env));
      // The image's own health check, as Docker runs it.
      const health = await runInImage(image.healthcheck!, { PORT: new URL(app.url).port });
      expect(health.code, health.output).toBe(0);

      const shop = "image-sqlite.myshopify.com";
      await installShop(app.url, shop);
      const order = await hijackedOrder(shop);
      expect(await deliver(app.url, order)).toBe(200);
      const db = new Database(path.join(data, "app.sqlite"), { readonly: true, fileMustExist: true });
      const verdict = () =>
        db.prepare(`SELECT "outcome", "verdictSource" FROM "Verification" WHERE "orderId" = ?`).get(order.orderId);
      await expect
        .poll(verdict, { timeout: 60_000, interval: 250 })
        .toEqual({ outcome: "hijacked", verdictSource: "service" });
      db.close();
      const samples = await scrape(app.metricsUrl);
      expect(
        total(samples, "tagguard_click_service_requests_total", { operation: "verify_click", outcome: "ok" }),
      ).toBe(1);

      expect(await app.stop()).toEqual({ code: 0, signal: null });
      // The image's folder belongs to root and the server runs as another user: it must write
      // nothing outside its data volume, not even at the release step.
      expect(snapshot(image.dir, data)).toEqual(before);
    },
  );
});

describe.skipIf(!binaries)("compose.yaml's services from the image, on one PostgreSQL database", () => {
  let compose: ComposeFile;
  let cluster: Cluster;
  let balancer: Balancer;
  const webs: Instance[] = [];
  let worker: Instance;
  let serviceEnv: (name: string) => Record<string, string>;
  let databaseUrl: string;
  const shop = "image-compose.myshopify.com";

  beforeAll(async () => {
    compose = readCompose();
    cluster = await startCluster(binaries!);
    await onServer(cluster.url, (client) => client.query(`CREATE DATABASE "tag_guard"`));
    databaseUrl = postgresqlDatabaseUrl(cluster.url, "tag_guard");
    // The env file compose reads, as .env.example has it, filled in; the substitutions compose makes.
    const envFile = readEnvFile(path.join(ROOT, ".env.example"));
    const variables = { ...envFile, POSTGRES_USER: "postgres", POSTGRES_PASSWORD: "trusted", POSTGRES_DB: "tag_guard" };
    const clusterAddress = new URL(cluster.url).host;
    balancer = await startBalancer();
    serviceEnv = (name) => {
      const environment = serviceEnvironment(compose.services[name]!, variables);
      // compose's network names the database's host "postgres"; here it is the throwaway cluster.
      environment.DATABASE_URL = environment.DATABASE_URL!.replace("@postgres:5432/", `@${clusterAddress}/`);
      return { ...envFile, ...environment, ...standinEnv(), SHOPIFY_APP_URL: balancer.url };
    };
  }, 120_000);

  afterAll(async () => {
    await balancer?.close();
    cluster?.stop();
  });

  it("pins PostgreSQL's major with a named volume and a health check, migrates once before any instance starts, and keeps secrets in the env file", () => {
    const { postgres, migrate, web, worker: workerService } = compose.services;
    expect(postgres!.image).toMatch(/^postgres:\d+$/);
    expect(postgres!.volumes).toEqual(["postgres-data:/var/lib/postgresql"]);
    expect(Object.keys(compose.volumes ?? {})).toEqual(["postgres-data"]);
    expect(postgres!.healthcheck!.test.join(" ")).toContain("pg_isready");
    expect(migrate!.command).toEqual(["npm", "run", "setup"]);
    expect(migrate!.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    for (const service of [web!, workerService!]) {
      expect(service.depends_on).toEqual({ migrate: { condition: "service_completed_successfully" } });
      expect(service.env_file).toBe(".env");
      expect(service.command).toBeUndefined(); // the image's CMD, npm start's command
    }
    expect(web!.deploy?.replicas).toBe(2);
    expect(web!.environment?.WORKER_ENABLED).toBe("false");
    expect(workerService!.environment?.WORKER_ENABLED).toBe("true");
    const secrets = [
      "SHOPIFY_API_KEY",
      "SHOPIFY_API_SECRET",
      "SHOPIFY_APP_URL",
      "SETTINGS_ENCRYPTION_KEY",
      "POSTGRES_PASSWORD",
    ];
    expect(Object.keys(readEnvFile(path.join(ROOT, ".env.example")))).toEqual(expect.arrayContaining(secrets));
    for (const service of Object.values(compose.services))
      for (const [key, value] of Object.entries(service.environment ?? {}))
        if (secrets.includes(key)) expect(String(value), key).toMatch(/^\$\{\w+/);
  });

  it(
    "two web instances and a worker verify a delivery; the metrics count the delivery, the job and the verify-click call",
    { timeout: 300_000 },
    async () => {
      const migrate = await timed("release step, PostgreSQL", () =>
        runInImage(compose.services.migrate!.command!, serviceEnv("migrate")),
      );
      expect(migrate.code, migrate.output).toBe(0);
      await timed("start two web instances and a worker", async () => {
        for (let i = 0; i < compose.services.web!.deploy!.replicas!; i++)
          webs.push(await startImage(serviceEnv("web")));
        worker = await startImage(serviceEnv("worker"));
      });
      balancer.setBackends(webs.map((web) => web.url));
      await expect.poll(() => balancer.ready().length, { timeout: 10_000 }).toBe(2);

      await installShop(balancer.url, shop);
      const order = await hijackedOrder(shop);
      expect(await deliver(balancer.url, order)).toBe(200);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const verdict = async () =>
          (
            await client.query(`SELECT "outcome", "verdictSource" FROM "Verification" WHERE "orderId" = $1`, [
              order.orderId,
            ])
          ).rows[0];
        await expect.poll(verdict, { timeout: 60_000, interval: 250 }).toEqual({
          outcome: "hijacked",
          verdictSource: "service",
        });
      } finally {
        await client.end();
      }

      const webSamples: Sample[] = (await Promise.all(webs.map((web) => scrape(web.metricsUrl)))).flat();
      const workerSamples = await scrape(worker.metricsUrl);
      // The delivery, where intake answered it.
      expect(total(webSamples, "tagguard_webhook_deliveries_total", { topic: "orders/create", status: "200" })).toBe(1);
      expect(total(webSamples, "tagguard_jobs_total")).toBe(0);
      // The job and its calls, where the worker ran them (on its thread: the endpoint adds them in).
      expect(total(workerSamples, "tagguard_jobs_total", { kind: "verify-order", result: "done" })).toBe(1);
      expect(
        total(workerSamples, "tagguard_click_service_requests_total", { operation: "verify_click", outcome: "ok" }),
      ).toBe(1);
      expect(
        total(workerSamples, "tagguard_click_service_request_duration_seconds_count", { operation: "verify_click" }),
      ).toBe(1);
      expect(total(workerSamples, "tagguard_shopify_tag_writes_total", { result: "ok" })).toBe(1);
      // The queue as the database holds it, the same seen from any instance: nothing due is left.
      expect(total(workerSamples, "tagguard_queue_jobs", { kind: "verify-order", state: "due" })).toBe(0);
      expect(total(webSamples, "tagguard_queue_oldest_due_job_age_seconds", { kind: "verify-order" })).toBe(0);
      for (const samples of [webSamples, workerSamples]) {
        expect(total(samples, "tagguard_ready")).toBeGreaterThan(0);
        for (const sample of samples)
          for (const value of Object.values(sample.labels)) expect(value).not.toContain(shop);
      }
    },
  );

  it(
    "a rolling restart of the web instances behind a load balancer routing on /readyz refuses no delivery",
    { timeout: 300_000 },
    async () => {
      expect(webs).toHaveLength(2);
      const answers: number[] = [];
      const sent: string[] = [];
      let sending = true;
      const sender = (async () => {
        while (sending) {
          const order = orderDelivery({ shop, secret: apiSecret, clickId: null, arrivedTag: null });
          sent.push(order.orderId);
          answers.push(await deliver(balancer.url, order).catch(() => 0));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await timed("rolling restart of two web instances", async () => {
        // One at a time, each stopped before its replacement starts (as `docker compose up`
        // recreates a container): meanwhile the other instance takes every delivery.
        for (let i = 0; i < webs.length; i++) {
          expect(await webs[i]!.stop()).toEqual({ code: 0, signal: null });
          webs[i] = await startImage(serviceEnv("web"));
          balancer.setBackends(webs.map((web) => web.url));
          await expect.poll(() => balancer.ready().length, { timeout: 10_000 }).toBe(2);
        }
      });
      sending = false;
      await sender;
      const refused = answers.filter((status) => status !== 200);
      expect(refused, `${refused.length} of ${answers.length} deliveries refused`).toEqual([]);
      expect(answers.length).toBeGreaterThan(40);
      // And the worker verified every one of them.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const decided = async () =>
          Number(
            (
              await client.query(
                `SELECT COUNT(*) AS "n" FROM "Verification" WHERE "orderId" = ANY($1) AND "outcome" IS NOT NULL`,
                [sent],
              )
            ).rows[0].n,
          );
        await expect.poll(decided, { timeout: 60_000, interval: 500 }).toBe(sent.length);
      } finally {
        await client.end();
      }
      await Promise.all([...webs, worker].map((instance) => instance.stop()));
    },
  );
});
