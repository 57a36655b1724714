import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { databaseClient, dialect, startDatabaseCheckpoints } from "../../app/database/db.server";
import {
  AUTOCHECKPOINT_PAGES,
  BACKSTOP_AUTOCHECKPOINT_PAGES,
  startWalCheckpoints,
  type CheckpointResult,
  type WalCheckpoints,
} from "../../app/database/wal-checkpoints.server";

const prisma = databaseClient();

// The app's connection must not copy the write-ahead log back into the database inside its own
// commits (a blocked event loop); a thread does. A copy of the database file alone, without its
// log, holds only what was checkpointed: the way to see that the thread did it.
describe("WAL checkpoints on a thread of their own", () => {
  const dirs: string[] = [];
  const running: WalCheckpoints[] = [];
  afterEach(async () => {
    for (const checkpoints of running.splice(0)) await checkpoints.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "wal-checkpoints-"));
    dirs.push(dir);
    return dir;
  };

  it("copies what another connection commits into the database file, that connection never checkpointing", async () => {
    const dir = scratch();
    const file = path.join(dir, "app.sqlite");
    const writer = new Database(file);
    writer.pragma("journal_mode = WAL");
    writer.pragma("wal_autocheckpoint = 0");
    writer.exec("CREATE TABLE deliveries (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");

    const results: CheckpointResult[] = [];
    running.push(startWalCheckpoints(file, { intervalMs: 20, onCheckpoint: (result) => results.push(result) }));
    const insert = writer.prepare("INSERT INTO deliveries (body) VALUES (?)");
    for (let round = 0; round < 20; round += 1) {
      for (let row = 0; row < 25; row += 1) insert.run(Buffer.alloc(1_300, round));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const writesEnded = Date.now();
    await vi.waitFor(
      () => {
        const last = results.at(-1);
        expect(last && last.startedAt > writesEnded && last.log > 0 && last.checkpointed === last.log).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
    writer.close();

    const copy = path.join(dir, "copy.sqlite");
    copyFileSync(file, copy);
    const reader = new Database(copy, { readonly: true });
    expect(reader.prepare("SELECT count(*) AS rows FROM deliveries").get()).toEqual({ rows: 500 });
    reader.close();
  });

  it("says why when it stops on its own, so the app's connection can checkpoint again", async () => {
    const stopped = new Promise<string>((resolve) => {
      running.push(startWalCheckpoints(path.join(scratch(), "missing.sqlite"), { onStopped: resolve }));
    });
    expect(await stopped).toMatch(/unable to open|does not exist|directory/i);
  });

  it("never keeps a process alive that has nothing else left to do", () => {
    const file = path.join(scratch(), "app.sqlite");
    new Database(file).pragma("journal_mode = WAL");
    // Kept alive until the thread has checkpointed once; from then on only the thread is left.
    const script = [
      `import { startWalCheckpoints } from ${JSON.stringify(path.resolve("app/database/wal-checkpoints.server.ts"))};`,
      `const alive = setInterval(() => {}, 1_000);`,
      `startWalCheckpoints(${JSON.stringify(file)}, {`,
      `  onCheckpoint: () => { if (alive.hasRef()) console.log("checkpointed"); clearInterval(alive); alive.unref(); },`,
      `});`,
    ].join("\n");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout).toContain("checkpointed");
  });

  it.runIf(dialect === "sqlite")("leaves the app's connection only a backstop once the thread runs", async () => {
    const autocheckpoint = async () => {
      const [row] =
        await prisma.$queryRawUnsafe<{ wal_autocheckpoint: number | bigint }[]>("PRAGMA wal_autocheckpoint");
      return Number(row?.wal_autocheckpoint);
    };
    // Importing the app's database module started no thread: SQLite checkpoints on the loop.
    await vi.waitFor(async () => expect(await autocheckpoint()).toBe(AUTOCHECKPOINT_PAGES), { timeout: 10_000 });
    startDatabaseCheckpoints();
    await vi.waitFor(async () => expect(await autocheckpoint()).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
