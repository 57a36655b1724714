-- CommissionDay kept by appending, as CommissionCreator is: the day rows were upserted, so every
-- order of a shop crediting on the same day waited on one row's lock (on PostgreSQL a flash
-- sale's commission inserts queued behind each other). Now every change appends a row that takes
-- a record's amount out of its old key or puts it in its new one, and the fold
-- (app/database/rollups.server.ts) merges a key's rows into one.

-- The old triggers upsert into the table being redefined.
DROP TRIGGER "Commission_day_insert";
DROP TRIGGER "Commission_day_delete";
DROP TRIGGER "Commission_day_update";

-- RedefineTables (the rows kept, each already folded)
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_CommissionDay" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "day" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "redirected" BOOLEAN NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "records" INTEGER NOT NULL,
    "loose" BOOLEAN NOT NULL DEFAULT true
);
INSERT INTO "new_CommissionDay" ("id", "amountMinor", "currency", "day", "records", "redirected", "shop", "status", "loose")
SELECT lower(hex(randomblob(16))), "amountMinor", "currency", "day", "records", "redirected", "shop", "status", 0 FROM "CommissionDay";
DROP TABLE "CommissionDay";
ALTER TABLE "new_CommissionDay" RENAME TO "CommissionDay";
CREATE INDEX "CommissionDay_period_idx" ON "CommissionDay"("shop", "day", "currency", "status", "redirected", "amountMinor", "records");
CREATE INDEX "CommissionDay_loose_idx" ON "CommissionDay"("loose");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- createdAt is stored as Unix milliseconds (decision 001), so integer division gives the day.
CREATE TRIGGER "Commission_day_insert" AFTER INSERT ON "Commission" BEGIN
  INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), NEW."shop", NEW."createdAt" / 86400000, NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1);
END;

CREATE TRIGGER "Commission_day_delete" AFTER DELETE ON "Commission" BEGIN
  INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), OLD."shop", OLD."createdAt" / 86400000, OLD."currency", OLD."status", OLD."redirected", -OLD."amountMinor", -1);
END;

-- An update that leaves all six columns as they were appends nothing.
CREATE TRIGGER "Commission_day_update" AFTER UPDATE OF "shop", "createdAt", "currency", "status", "redirected", "amountMinor" ON "Commission"
WHEN OLD."shop" IS NOT NEW."shop" OR OLD."createdAt" IS NOT NEW."createdAt" OR OLD."currency" IS NOT NEW."currency"
  OR OLD."status" IS NOT NEW."status" OR OLD."redirected" IS NOT NEW."redirected" OR OLD."amountMinor" IS NOT NEW."amountMinor" BEGIN
  INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), OLD."shop", OLD."createdAt" / 86400000, OLD."currency", OLD."status", OLD."redirected", -OLD."amountMinor", -1);
  INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), NEW."shop", NEW."createdAt" / 86400000, NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1);
END;
