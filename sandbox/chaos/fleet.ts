import { startApp, type AppProcess } from "../demo/app-process";
import { freePort } from "../listen";
import type { Random } from "../seeded-random";
import type { MetricsScraper } from "./metrics";

// The app's instances: separate processes of the production build on one database, each with
// its worker, so `kill -9` is a real process death (mid-request, mid-job, leases held) and a
// restart is a real cold start.

export interface Fleet {
  /** Base URL of a random live instance; null while none is up. */
  pick(): string | null;
  /** kill -9 on instance `slot`, then starts it again (on a new port); resolves once it answers. */
  killAndRestart(slot: number): Promise<void>;
  readonly size: number;
  /** What the instances logged at level error (the run logs nothing less), by message, most frequent first. */
  errors(): [string, number][];
  /** How many lines the instances wrote at level error, folded ones counting once. */
  errorLines(): number;
  stop(): Promise<void>;
}

export async function startFleet(
  size: number,
  env: Record<string, string>,
  random: Random,
  log: (line: string) => void,
  /** Each process's metrics endpoint (METRICS_PORT), scraped during the run. */
  metrics: MetricsScraper,
): Promise<Fleet> {
  const quiet = () => {};
  const slots: (AppProcess | null)[] = [];
  /** Every process started, the killed ones too: their last words are evidence. */
  const started: AppProcess[] = [];
  const start = async () => {
    const metricsPort = await freePort();
    const app = await startApp({ ...env, METRICS_PORT: String(metricsPort) }, quiet);
    metrics.watch(`http://127.0.0.1:${metricsPort}`);
    started.push(app);
    return app;
  };
  // One at a time: a cold start is CPU-bound, and two at once on a small machine take longer than in turn.
  for (let slot = 0; slot < size; slot++) slots.push(await start());
  log(`Started ${size} app instances: ${slots.map((app) => app!.url).join(", ")}`);
  return {
    size,
    pick() {
      const live = slots.filter((app): app is AppProcess => app !== null);
      return live.length === 0 ? null : live[Math.floor(random() * live.length)]!.url;
    },
    async killAndRestart(slot) {
      const victim = slots[slot]!;
      slots[slot] = null;
      await victim.kill();
      log(`kill -9 ${victim.pid} (instance ${slot + 1}, ${victim.url}); restarting it`);
      slots[slot] = await start();
      log(`Instance ${slot + 1} is back at ${slots[slot]!.url}`);
    },
    errors() {
      const counts = new Map<string, number>();
      for (const line of started.flatMap((app) => app.output().split("\n"))) {
        const error = errorOf(line);
        if (error) counts.set(error.summary, (counts.get(error.summary) ?? 0) + error.count);
      }
      return [...counts].sort((a, b) => b[1] - a[1]);
    },
    errorLines() {
      return started.flatMap((app) => app.output().split("\n")).filter((line) => errorOf(line) !== null).length;
    },
    async stop() {
      await Promise.all(slots.map((app) => app?.stop()));
    },
  };
}

/**
 * An error line's message and cause, without what differs from one line to the next, and how many
 * errors it stands for: a line folding repeated ones (the app's logger) counts them all.
 */
function errorOf(line: string): { summary: string; count: number } | null {
  if (!line.trim()) return null;
  try {
    const entry = JSON.parse(line) as {
      level?: string;
      event?: string;
      message?: string;
      error?: { message?: string };
      repeated?: number;
    };
    if (entry.level !== "error") return null;
    const cause = (entry.error?.message ?? "").replace(/\s+/g, " ").slice(-300);
    // The access log's message names the request: a 5xx answer counts by method and path.
    const summary =
      entry.event === "http.request"
        ? `HTTP ${entry.message?.replace(/^(\S+ \S+) (\d{3}).*$/, "$2 for $1")}`
        : `${entry.message}${cause ? `: ${cause}` : ""}`;
    return { summary, count: entry.repeated ?? 1 };
  } catch {
    // Not one of the app's JSON lines: its own report of an uncaught error.
    return /error/i.test(line) ? { summary: line.trim().slice(0, 300), count: 1 } : null;
  }
}
