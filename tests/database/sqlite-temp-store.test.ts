import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { Prisma } from "@prisma/client";
import { describe, expect, it, vi } from "vitest";
import { databaseClient, dialect } from "../../app/database/db.server";
import { insertRows, sql } from "../../app/database/sql.server";

const prisma = databaseClient();

// The app's SQLite connection keeps temporary storage in memory (app/database/db.server.ts): the journal
// a savepoint keeps of the pages it may roll back never becomes a file on disk, however many
// pages the savepoint changes. SQLite opens such files already unlinked, so they are seen among
// the process's open files (Linux), while the transaction that needs them runs.

const FDS = "/proc/self/fd";

function sqliteTemporaryFiles(): string[] {
  return readdirSync(FDS).flatMap((fd) => {
    try {
      const target = readlinkSync(`${FDS}/${fd}`);
      return target.includes("etilqs_") ? [target] : [];
    } catch {
      return []; // closed since it was listed
    }
  });
}

describe.runIf(dialect === "sqlite" && existsSync(FDS))("SQLite's temporary storage", () => {
  it("keeps a savepoint's journal in memory when it outgrows SQLite's 64 KiB spill size", async () => {
    await vi.waitFor(async () => {
      const [row] = await prisma.$queryRawUnsafe<{ temp_store: number | bigint }[]>("PRAGMA temp_store");
      expect(Number(row?.temp_store)).toBe(2);
    });
    const shop = `temp-store-${randomUUID()}.myshopify.com`;
    const at = new Date("2026-11-26T03:00:00.000Z");
    // About 400 KB of committed rows: a savepoint that rewrites them all journals ~100 pages.
    const rows = Array.from({ length: 400 }, (_, index) => ({
      id: randomUUID(),
      shop,
      topic: "orders/create",
      eventId: `event-${index}`,
      status: "invalid",
      payload: "x".repeat(1_000),
      receivedAt: at,
    }));
    await sql.transaction((tx) => insertRows(tx, "WebhookDelivery", rows));

    const seen = await sql.transaction(async (tx) => {
      await tx.execute(Prisma.raw(`SAVEPOINT "spill"`));
      const changed = await tx.execute(
        Prisma.sql`UPDATE "WebhookDelivery" SET "payload" = ${"y".repeat(1_000)} WHERE "shop" = ${shop}`,
      );
      const files = sqliteTemporaryFiles();
      await tx.execute(Prisma.raw(`ROLLBACK TO "spill"`));
      await tx.execute(Prisma.raw(`RELEASE "spill"`));
      return { changed, files };
    });

    expect(seen.changed).toBe(400);
    expect(seen.files).toEqual([]);
    // The rollback to the savepoint restored every page from that journal.
    const kept = await prisma.webhookDelivery.findMany({ where: { shop }, select: { payload: true } });
    expect(kept.map((row) => row.payload?.[0])).toEqual(rows.map(() => "x"));
  });
});
