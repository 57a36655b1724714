-- CreateTable
CREATE TABLE "VerificationHour" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "hour" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "q0" INTEGER NOT NULL,
    "q1" INTEGER NOT NULL,
    "q2" INTEGER NOT NULL,
    "q3" INTEGER NOT NULL,
    "loose" BOOLEAN NOT NULL DEFAULT true
);

-- CreateIndex
CREATE INDEX "VerificationHour_shop_hour_idx" ON "VerificationHour"("shop", "hour");

-- CreateIndex
CREATE INDEX "VerificationHour_loose_idx" ON "VerificationHour"("loose");


-- Backfill from the orders already there, one folded row per key.
INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3", "loose")
SELECT lower(hex(randomblob(16))), "shop", "createdAt" / 3600000, "outcome", COALESCE("captureSource", ''),
       SUM(("createdAt" % 3600000) / 900000 = 0), SUM(("createdAt" % 3600000) / 900000 = 1),
       SUM(("createdAt" % 3600000) / 900000 = 2), SUM(("createdAt" % 3600000) / 900000 = 3), 0
FROM "Verification" WHERE "outcome" IS NOT NULL
GROUP BY "shop", "createdAt" / 3600000, "outcome", COALESCE("captureSource", '');

-- Every change to a decided order appends a row that takes it out of its old key (-1) or puts it
-- in its new one (+1), in the quarter of the hour it was created in. createdAt is stored as Unix
-- milliseconds (decision 001), so integer division gives the hour and the quarter.
CREATE TRIGGER "Verification_hour_insert" AFTER INSERT ON "Verification" WHEN NEW."outcome" IS NOT NULL BEGIN
  INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
  VALUES (lower(hex(randomblob(16))), NEW."shop", NEW."createdAt" / 3600000, NEW."outcome", COALESCE(NEW."captureSource", ''),
          (NEW."createdAt" % 3600000) / 900000 = 0, (NEW."createdAt" % 3600000) / 900000 = 1,
          (NEW."createdAt" % 3600000) / 900000 = 2, (NEW."createdAt" % 3600000) / 900000 = 3);
END;

CREATE TRIGGER "Verification_hour_delete" AFTER DELETE ON "Verification" WHEN OLD."outcome" IS NOT NULL BEGIN
  INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
  VALUES (lower(hex(randomblob(16))), OLD."shop", OLD."createdAt" / 3600000, OLD."outcome", COALESCE(OLD."captureSource", ''),
          -((OLD."createdAt" % 3600000) / 900000 = 0), -((OLD."createdAt" % 3600000) / 900000 = 1),
          -((OLD."createdAt" % 3600000) / 900000 = 2), -((OLD."createdAt" % 3600000) / 900000 = 3));
END;

-- An update that leaves all four columns as they were (a job writing the outcome it already
-- had) appends nothing.
CREATE TRIGGER "Verification_hour_update" AFTER UPDATE OF "shop", "createdAt", "outcome", "captureSource" ON "Verification"
WHEN OLD."outcome" IS NOT NEW."outcome" OR OLD."captureSource" IS NOT NEW."captureSource"
  OR OLD."createdAt" <> NEW."createdAt" OR OLD."shop" <> NEW."shop" BEGIN
  INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
  SELECT lower(hex(randomblob(16))), OLD."shop", OLD."createdAt" / 3600000, OLD."outcome", COALESCE(OLD."captureSource", ''),
         -((OLD."createdAt" % 3600000) / 900000 = 0), -((OLD."createdAt" % 3600000) / 900000 = 1),
         -((OLD."createdAt" % 3600000) / 900000 = 2), -((OLD."createdAt" % 3600000) / 900000 = 3)
  WHERE OLD."outcome" IS NOT NULL;
  INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
  SELECT lower(hex(randomblob(16))), NEW."shop", NEW."createdAt" / 3600000, NEW."outcome", COALESCE(NEW."captureSource", ''),
         (NEW."createdAt" % 3600000) / 900000 = 0, (NEW."createdAt" % 3600000) / 900000 = 1,
         (NEW."createdAt" % 3600000) / 900000 = 2, (NEW."createdAt" % 3600000) / 900000 = 3
  WHERE NEW."outcome" IS NOT NULL;
END;
