import { startApp, type AppProcess } from "../demo/app-process";
import type { Random } from "../seeded-random";

// The app's instances: separate processes of the production build on one database, each with
// its worker, so `kill -9` is a real process death (mid-request, mid-job, leases held) and a
// restart is a real cold start.

export interface Fleet {
  /** Base URL of a random live instance; null while none is up. */
  pick(): string | null;
  /** kill -9 on instance `slot`, then starts it again (on a new port); resolves once it answers. */
  killAndRestart(slot: number): Promise<void>;
  readonly size: number;
  stop(): Promise<void>;
}

export async function startFleet(
  size: number,
  env: Record<string, string>,
  random: Random,
  log: (line: string) => void,
): Promise<Fleet> {
  const quiet = () => {};
  const slots: (AppProcess | null)[] = [];
  // One at a time: a cold start is CPU-bound, and two at once on a small machine take longer than in turn.
  for (let slot = 0; slot < size; slot++) slots.push(await startApp(env, quiet));
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
      slots[slot] = await startApp(env, quiet);
      log(`Instance ${slot + 1} is back at ${slots[slot]!.url}`);
    },
    async stop() {
      await Promise.all(slots.map((app) => app?.stop()));
    },
  };
}
