-- CreateTable
CREATE TABLE "CommissionCreator" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "redirected" BOOLEAN NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "records" INTEGER NOT NULL,
    "loose" BOOLEAN NOT NULL DEFAULT true
);

-- CreateIndex
CREATE INDEX "CommissionCreator_shop_creatorId_idx" ON "CommissionCreator"("shop", "creatorId");

-- CreateIndex
CREATE INDEX "CommissionCreator_loose_idx" ON "CommissionCreator"("loose");


-- Backfill from the records already there, one folded row per key.
INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records", "loose")
SELECT lower(hex(randomblob(16))), "shop", "creatorId", "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), 0
FROM "Commission" GROUP BY "shop", "creatorId", "currency", "status", "redirected";

-- Every change to a commission appends a row that takes its amount out of its old key or puts it
-- in its new one.
CREATE TRIGGER "Commission_creator_insert" AFTER INSERT ON "Commission" BEGIN
  INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), NEW."shop", NEW."creatorId", NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1);
END;

CREATE TRIGGER "Commission_creator_delete" AFTER DELETE ON "Commission" BEGIN
  INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), OLD."shop", OLD."creatorId", OLD."currency", OLD."status", OLD."redirected", -OLD."amountMinor", -1);
END;

-- An update that leaves all six columns as they were appends nothing.
CREATE TRIGGER "Commission_creator_update" AFTER UPDATE OF "shop", "creatorId", "currency", "status", "redirected", "amountMinor" ON "Commission"
WHEN OLD."shop" IS NOT NEW."shop" OR OLD."creatorId" IS NOT NEW."creatorId" OR OLD."currency" IS NOT NEW."currency"
  OR OLD."status" IS NOT NEW."status" OR OLD."redirected" IS NOT NEW."redirected" OR OLD."amountMinor" IS NOT NEW."amountMinor" BEGIN
  INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), OLD."shop", OLD."creatorId", OLD."currency", OLD."status", OLD."redirected", -OLD."amountMinor", -1);
  INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
  VALUES (lower(hex(randomblob(16))), NEW."shop", NEW."creatorId", NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1);
END;
