import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// Another instance of the app in its own process, on the test file's database: what a second
// server behind the load balancer is. Its in-process wake signal never reaches the test's
// worker, and it can die (SIGKILL) holding a lease that then runs out on the wall clock.
//
// Run as a script (by startOtherInstance) it serves the app's public routes and, with
// `--worker OWNER LEASE_MS`, runs a worker that claims what is due, then stalls for good at the
// step that would tag an order in Shopify, saying so on stdout: as good as a process that died
// there, once the test kills it.

export interface OtherInstance {
  /** Its webhook and app proxy routes. */
  url: string;
  /** Resolves with the shop when its worker reaches the tag step (never without --worker). */
  stalled: Promise<string>;
  kill(): Promise<void>;
}

const SCRIPT = fileURLToPath(import.meta.url);
const START_TIMEOUT_MS = 90_000;

export async function startOtherInstance(worker?: { owner: string; leaseMs: number }): Promise<OtherInstance> {
  const args = ["--import", "tsx", SCRIPT, ...(worker ? ["--worker", worker.owner, String(worker.leaseMs)] : [])];
  // The test process's environment is the app's (tests/support/setup-env.ts): same database, same keys.
  const child: ChildProcess = spawn(process.execPath, args, { env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stderr?.on("data", (chunk) => (output += chunk));
  const lines = createInterface({ input: child.stdout! });
  let onStalled!: (shop: string) => void;
  const stalled = new Promise<string>((resolve) => (onStalled = resolve));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the other instance exited (${code}):\n${output}`)));
    // Starting means compiling the app's modules: slow on a loaded machine, but never this slow.
    const startTimeout = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the other instance did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    lines.on("line", (line) => {
      output += `${line}\n`;
      const [word, value] = line.split(" ");
      if (word === "URL") {
        clearTimeout(startTimeout);
        resolve(value!);
      }
      if (word === "STALLED") onStalled(value!);
    });
  });
  return {
    url,
    stalled,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

async function main(argv: string[]): Promise<void> {
  const { servePublicRoutes } = await import("./app-routes");
  const app = await servePublicRoutes();
  const workerAt = argv.indexOf("--worker");
  if (workerAt >= 0) {
    const { startWorker } = await import("../../app/worker/worker.server");
    const { testDeps } = await import("./pipeline-harness");
    startWorker({
      owner: argv[workerAt + 1],
      leaseMs: Number(argv[workerAt + 2]),
      concurrency: 1,
      pollIntervalMs: 3_600_000,
      deps: testDeps({
        shopifyAdmin: (shop) => {
          process.stdout.write(`STALLED ${shop}\n`);
          return new Promise(() => {});
        },
      }),
    });
  }
  process.stdout.write(`URL ${app.url}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === SCRIPT) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
