import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "../listen";

// Runs the real production build of the app as a child process, the way a host would run it.

const ROOT = path.resolve(import.meta.dirname, "../..");
/** The app's build, and the bench's, which adds the template-style reference route (vite.config.ts). */
export type BuildKind = "app" | "bench";
const BUILDS: Record<BuildKind, { dir: string; env: Record<string, string>; inputs: string[] }> = {
  app: { dir: path.join(ROOT, "build"), env: {}, inputs: [] },
  bench: {
    dir: path.join(ROOT, "build/bench"),
    env: { TAG_GUARD_BUILD: "bench" },
    inputs: ["bench/reference-route.tsx"],
  },
};
const serverBuildOf = (kind: BuildKind) => path.join(BUILDS[kind].dir, "server/index.js");
const SERVER_BUILD = serverBuildOf("app");

/**
 * How a host runs the built app (`npm start`, which tests/structure/start-command.test.ts holds to
 * this): the node arguments after any of node's own. A young generation of 8 MB semispaces:
 * with 2 MB, 60 collections a second and an old-generation collection every second or two put
 * intake's p99 at 300/s past 15 ms; 16 MB (V8's default on a 64-bit machine) did best while the
 * worker shared intake's thread, but the flag sizes every thread's young generation, and with
 * the worker on a thread of its own (decision 019) two of them at 16 put the end-to-end run
 * past 300 MB, where 8 kept it near 270 at the same intake tail.
 * An old generation capped at 256 MB (V8 otherwise sizes it from the machine's memory and lets
 * it grow) kept a 15,000-order run flat instead of creeping past 300 MB
 * (docs/lab/throughput-notes.md, "Intake before Remix (decision 015)").
 */
export const APP_NODE_FLAGS = ["--max-semi-space-size=8", "--max-old-space-size=256"];
/**
 * The environment `npm start` sets before node starts (glibc reads it once, at the first
 * allocation): two malloc arenas for the process. By default glibc gives each thread an arena of
 * its own, up to eight per core; theirs fragmented, and the end-to-end run's memory climbed 7 %
 * from its first quarter to its last. With two it stays within 5 % at the same CPU per order
 * (decision 046).
 */
export const APP_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };
export const APP_SERVER_ARGS = [...APP_NODE_FLAGS, path.join(ROOT, "server.mjs"), SERVER_BUILD];
/**
 * How `npm run dev` runs the app (shopify.web.toml's dev command, less the migration): the same
 * server and arrangement, the app compiled from app/ by Vite instead of read from the build.
 * No heap caps: Vite compiles on both threads.
 */
export const DEV_SERVER_ARGS = [path.join(ROOT, "server.mjs"), "--dev"];
const BENCH_SERVER_ARGS = [...APP_NODE_FLAGS, path.join(ROOT, "server.mjs"), serverBuildOf("bench")];
/** Usually under two seconds; generous because a loaded two-core machine can be far slower. */
export const START_TIMEOUT_MS = 90_000;
/**
 * How long a stopped instance has to end once its SHUTDOWN_DELAY_MS is over, before stop() kills
 * it: the server's grace for answers in flight (2 s, server.mjs), then the worker finishing its
 * jobs and the database closing. Usually well under a second; generous for the same reason.
 */
const STOP_GRACE_MS = 30_000;

/**
 * How long stop() waits for an instance started with `env` to end before it kills it: the
 * SHUTDOWN_DELAY_MS it serves on after the signal (the app's own default is 0), then
 * STOP_GRACE_MS. A kill sooner would end an instance still doing what the delay asks of it.
 */
export function stopTimeoutMs(env: Record<string, string | undefined>): number {
  return Number(env.SHUTDOWN_DELAY_MS ?? 0) + STOP_GRACE_MS;
}

// Everything the production build is made from: a change to any of it (app code, the Vite or
// TypeScript config, a dependency) must rebuild, and nothing else should.
const BUILD_INPUTS = [
  "app",
  "vite.config.ts",
  "tsconfig.json",
  "env.d.ts",
  "package-lock.json",
  "prisma/schema.prisma",
];
function hashInputs(kind: BuildKind): string {
  const hash = createHash("sha256");
  const add = (relative: string) => {
    const full = path.join(ROOT, relative);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(path.join(relative, entry));
      return;
    }
    hash.update(`${relative}\0`).update(readFileSync(full)).update("\0");
  };
  for (const input of [...BUILD_INPUTS, ...BUILDS[kind].inputs]) add(input);
  return hash.digest("hex");
}

/** Builds when there is no build, or when anything it is made from changed since the last one. */
export function ensureBuild(log: (line: string) => void, kind: BuildKind = "app"): void {
  const inputs = hashInputs(kind);
  const stamp = path.join(BUILDS[kind].dir, ".source-hash");
  if (existsSync(serverBuildOf(kind)) && existsSync(stamp) && readFileSync(stamp, "utf8") === inputs) return;
  log(kind === "app" ? "Building the app (first run only; about a minute)..." : "Building the app for the bench...");
  const result = spawnSync("npx", ["remix", "vite:build"], {
    cwd: ROOT,
    // A production build whoever asks: under a test runner NODE_ENV is "test", and Vite would
    // bake that into the browser's bundle (React's development build, larger and slower).
    env: { ...process.env, NODE_ENV: "production", ...BUILDS[kind].env },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`the app build failed:\n${result.stdout}\n${result.stderr}`);
  writeFileSync(stamp, inputs);
}

export function migrate(databaseUrl: string): void {
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`database migration failed:\n${result.stdout}\n${result.stderr}`);
}

/** What the app's production build needs to run against the stand-ins, on `databaseUrl`. */
export interface StandinAppSetup {
  apiKey: string;
  apiSecret: string;
  databaseUrl: string;
  shopifyUrl: string;
  clickServiceUrl: string;
}

/** The app's environment for a stack of stand-ins, with its worker on; callers add their own tuning. */
/**
 * The access scopes shopify.app.toml declares: what the app asks for and what a merchant's
 * install grants it (the Shopify stand-in is started with them, as Shopify grants them).
 */
export const APP_SCOPES = (() => {
  const toml = readFileSync(path.join(ROOT, "shopify.app.toml"), "utf8");
  const scopes = /^scopes = "([^"]*)"$/m.exec(toml)?.[1];
  if (!scopes) throw new Error("shopify.app.toml declares no access scopes");
  return scopes;
})();

export function standinAppEnv(setup: StandinAppSetup): Record<string, string> {
  return {
    SCOPES: APP_SCOPES,
    // Not "development": Remix would wait for Vite's dev server. Any value but
    // "production" lets the app accept the Shopify stand-in.
    NODE_ENV: "test",
    SHOPIFY_API_KEY: setup.apiKey,
    SHOPIFY_API_SECRET: setup.apiSecret,
    DATABASE_URL: setup.databaseUrl,
    SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    SHOPIFY_STANDIN_URL: setup.shopifyUrl,
    // The sandbox service listens on this machine: let exactly its origin through.
    CLICK_SERVICE_ALLOW_ORIGINS: setup.clickServiceUrl,
    WORKER_ENABLED: "true",
  };
}

export interface AppExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess {
  url: string;
  /** The server's process id (benchmarks read its memory). */
  pid: number;
  /** SIGTERM, then SIGKILL if it has not exited within stopTimeoutMs of its environment; resolves with how it ended. */
  stop(): Promise<AppExit>;
  /** kill -9: the process dies at once, mid-request and mid-job, as in a crash. */
  kill(): Promise<AppExit>;
  /** The last lines it printed (for a report when something went wrong). */
  output(): string;
}

/**
 * What runs the app: the production build (`npm start`), its sources as `npm run dev` runs
 * them, or the bench's build (the production build with the reference route).
 */
export type AppServer = "build" | "dev" | "bench";

/**
 * Starts the production build (or the sources, as development does) and resolves once /healthz
 * says it is healthy, or with `readyWhen: "answering"` once it answers at all (a test of an app
 * whose database is down).
 */
export async function startApp(
  env: Record<string, string>,
  log: (line: string) => void,
  nodeArgs: string[] = [],
  readyWhen: "healthy" | "answering" = "healthy",
  server: AppServer = "build",
): Promise<AppProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serverArgs = { build: APP_SERVER_ARGS, dev: DEV_SERVER_ARGS, bench: BENCH_SERVER_ARGS }[server];
  const childEnv = { ...process.env, ...APP_ENV, ...env, PORT: String(port), HOST: "127.0.0.1", SHOPIFY_APP_URL: url };
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...serverArgs], {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 1_000) output.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  // Set by the exit event (a cast, so that the loop below does not read it as always null).
  let exited = null as AppExit | null;
  const exit = new Promise<AppExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  void exit.then((how) => (exited = how));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    // How it ended says what the output may not: a signal from outside leaves no last words.
    if (exited)
      throw new Error(
        `the app exited during start-up (code ${exited.code}, signal ${exited.signal}):\n${output.join("")}`,
      );
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok || readyWhen === "answering") break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  if (Date.now() >= deadline) {
    child.kill("SIGKILL");
    throw new Error(`the app did not answer /healthz within ${START_TIMEOUT_MS / 1000} s:\n${output.join("")}`);
  }
  log(`App running at ${url}`);
  return {
    url,
    pid: child.pid!,
    stop: () => {
      if (!exited) {
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), stopTimeoutMs(childEnv)).unref();
      }
      return exit;
    },
    kill: () => {
      if (!exited) child.kill("SIGKILL");
      return exit;
    },
    output: () => output.join(""),
  };
}
