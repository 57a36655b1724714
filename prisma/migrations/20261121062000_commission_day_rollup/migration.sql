-- CreateTable
CREATE TABLE "CommissionDay" (
    "shop" TEXT NOT NULL,
    "day" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "redirected" BOOLEAN NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "records" INTEGER NOT NULL,

    PRIMARY KEY ("shop", "day", "currency", "status", "redirected")
);


-- Backfill from the records already there.
INSERT INTO "CommissionDay" ("shop", "day", "currency", "status", "redirected", "amountMinor", "records")
SELECT "shop", "createdAt" / 86400000, "currency", "status", "redirected", SUM("amountMinor"), COUNT(*)
FROM "Commission" GROUP BY 1, 2, 3, 4, 5;

-- Every change to a commission moves its amount between day rows in the same transaction.
-- createdAt is stored as Unix milliseconds (decision 001), so integer division gives the day.
CREATE TRIGGER "Commission_day_insert" AFTER INSERT ON "Commission" BEGIN
  INSERT INTO "CommissionDay" ("shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (NEW."shop", NEW."createdAt" / 86400000, NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1)
  ON CONFLICT ("shop", "day", "currency", "status", "redirected")
  DO UPDATE SET "amountMinor" = "amountMinor" + excluded."amountMinor", "records" = "records" + 1;
END;

CREATE TRIGGER "Commission_day_delete" AFTER DELETE ON "Commission" BEGIN
  UPDATE "CommissionDay" SET "amountMinor" = "amountMinor" - OLD."amountMinor", "records" = "records" - 1
  WHERE "shop" = OLD."shop" AND "day" = OLD."createdAt" / 86400000 AND "currency" = OLD."currency"
    AND "status" = OLD."status" AND "redirected" = OLD."redirected";
END;

CREATE TRIGGER "Commission_day_update" AFTER UPDATE OF "shop", "createdAt", "currency", "status", "redirected", "amountMinor" ON "Commission" BEGIN
  UPDATE "CommissionDay" SET "amountMinor" = "amountMinor" - OLD."amountMinor", "records" = "records" - 1
  WHERE "shop" = OLD."shop" AND "day" = OLD."createdAt" / 86400000 AND "currency" = OLD."currency"
    AND "status" = OLD."status" AND "redirected" = OLD."redirected";
  INSERT INTO "CommissionDay" ("shop", "day", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (NEW."shop", NEW."createdAt" / 86400000, NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1)
  ON CONFLICT ("shop", "day", "currency", "status", "redirected")
  DO UPDATE SET "amountMinor" = "amountMinor" + excluded."amountMinor", "records" = "records" + 1;
END;
