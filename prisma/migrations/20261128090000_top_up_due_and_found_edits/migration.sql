-- AlterTable
ALTER TABLE "CommissionEntry" ADD COLUMN "dueAt" DATETIME;

-- AlterTable: SQLite adds a column with a constant default in place, without copying the table.
ALTER TABLE "ShopReconciliation" ADD COLUMN "foundEdits" INTEGER NOT NULL DEFAULT 0;

-- Backfill: a top-up written before its due time was kept waits the shop's hold as it stands
-- now, from when it was written (what payouts applied to it until now, fixed from here on); a
-- shop without settings has the default hold (DEFAULT_HOLD_DAYS, app/commissions/statuses.ts).
-- Times are Unix milliseconds (the adapter's timestampFormat, app/database/connect.server.ts).
UPDATE "CommissionEntry" SET "dueAt" = "createdAt" + 86400000 * COALESCE(
  (SELECT "holdDays" FROM "ShopSettings" WHERE "ShopSettings"."shop" = "CommissionEntry"."shop"), 30)
WHERE "kind" = 'top_up';
