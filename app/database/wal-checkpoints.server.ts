import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// SQLite copies its write-ahead log back into the database file (a checkpoint) inside whichever
// commit pushes the log past 1,000 pages, and syncs the file there. better-sqlite3 is
// synchronous, so that commit holds the event loop for the copy and two fsyncs: about 10 ms
// every second or so under a steady 300 webhooks a second on the machine CI uses, longer on a
// slower disk, and every request waiting meanwhile takes it as latency. A connection on a
// thread of its own checkpoints instead, beside the writer (a passive checkpoint never blocks
// it); the app's connection keeps a far larger automatic checkpoint as a backstop should the
// thread stop (docs/decisions/017-wal-checkpoints-on-a-thread.md).

/**
 * How often the thread checkpoints. Often, so each copy is small: the commit that follows a
 * checkpoint waits on the file system in proportion to what it copied (up to 60 ms on this
 * disk after a 500 ms interval under a steady 300 webhooks a second; under 10 ms at 50 ms).
 */
export const CHECKPOINT_INTERVAL_MS = 50;
/** SQLite's own default: the app's connection checkpoints itself when no thread does. */
export const AUTOCHECKPOINT_PAGES = 1_000;
/** While the thread runs: about 40 MB of log, reached only if the thread falls far behind. */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;

/** What `PRAGMA wal_checkpoint(PASSIVE)` reports (pages in the log, how many are copied back), and when it began. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
  startedAt: number;
}

export interface WalCheckpointsOptions {
  intervalMs?: number;
  /** The thread has checkpointed once: the app's connection can leave checkpoints to it. */
  onRunning?: () => void;
  /** The thread has stopped or failed: the app's connection must checkpoint again. */
  onStopped?: (reason: string) => void;
  onCheckpoint?: (result: CheckpointResult) => void;
}

export interface WalCheckpoints {
  stop(): Promise<void>;
}

// Evaluated as the thread's script (CommonJS); kept to the one loop so there is nothing to
// bundle. A checkpoint that fails (the file is gone, say) ends the thread; the backstop covers.
// better-sqlite3's errors lose their message crossing threads, so it is rethrown as an Error.
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const plainly = (step) => () => {
  try {
    step();
  } catch (error) {
    throw new Error(String(error && error.message ? error.message : error));
  }
};
let db;
const checkpoint = plainly(() => {
  db = db || new Database(workerData.file, { fileMustExist: true });
  const startedAt = Date.now();
  parentPort.postMessage({ ...db.pragma("wal_checkpoint(PASSIVE)")[0], startedAt });
});
checkpoint();
setInterval(checkpoint, workerData.intervalMs);
`;

/** Checkpoints a SQLite file in WAL mode from a thread of its own, until stopped. */
export function startWalCheckpoints(file: string, options: WalCheckpointsOptions = {}): WalCheckpoints {
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: {
      file,
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
    },
    // Not the process's own flags (a loader, --input-type=module, a profiler): the script is
    // plain CommonJS, and the thread holds one connection and a timer, so a small heap is plenty.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  let running = false;
  let stopping = false;
  worker.on("message", (result: CheckpointResult) => {
    if (!running) {
      running = true;
      options.onRunning?.();
    }
    options.onCheckpoint?.(result);
  });
  let failure = "the checkpoint thread exited";
  worker.on("error", (error) => (failure = error.message));
  worker.once("exit", () => {
    if (!stopping) options.onStopped?.(failure);
  });
  // Last: a "message" listener refs the thread again, and a ref'd thread keeps the process
  // alive after the server closes.
  worker.unref();
  return {
    stop: async () => {
      stopping = true;
      await worker.terminate();
    },
  };
}
