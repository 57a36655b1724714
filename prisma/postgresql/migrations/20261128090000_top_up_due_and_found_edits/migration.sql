-- AlterTable
ALTER TABLE "ShopReconciliation" ADD COLUMN     "foundEdits" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "CommissionEntry" ADD COLUMN     "dueAt" TIMESTAMP(3);

-- Backfill, as in the SQLite migration of the same name: a top-up written before its due time
-- was kept waits the shop's hold as it stands now, from when it was written; a shop without
-- settings has the default hold (DEFAULT_HOLD_DAYS, app/commissions/statuses.ts). The columns
-- have no time zone, so a day is 24 hours, as holdEnd (app/commissions/credit.server.ts) counts.
UPDATE "CommissionEntry" SET "dueAt" = "createdAt" + INTERVAL '1 day' * COALESCE(
  (SELECT "holdDays" FROM "ShopSettings" WHERE "ShopSettings"."shop" = "CommissionEntry"."shop"), 30)
WHERE "kind" = 'top_up';
