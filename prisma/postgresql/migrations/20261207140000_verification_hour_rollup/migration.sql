-- CreateTable
CREATE TABLE "VerificationHour" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "hour" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "q0" INTEGER NOT NULL,
    "q1" INTEGER NOT NULL,
    "q2" INTEGER NOT NULL,
    "q3" INTEGER NOT NULL,
    "loose" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "VerificationHour_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "VerificationHour_shop_hour_idx" ON "VerificationHour"("shop", "hour");

-- CreateIndex
CREATE INDEX "VerificationHour_loose_idx" ON "VerificationHour"("loose");


-- The PostgreSQL port of prisma/migrations/20261207140000_verification_hour_rollup: every change
-- to a decided order appends a row of "VerificationHour" that takes it out of its old key (-1)
-- or puts it in its new one (+1), in the same transaction. Rows are only ever appended, so two
-- orders of the same hour never wait on each other's row lock; the fold (app/database/rollups.server.ts)
-- merges them.
-- The hour is "createdAt" (timestamp(3), kept in UTC by Prisma) in hours since 1970, as SQLite's
-- Unix milliseconds / 3600000; the quarter is its minute / 15.

-- Backfill from the orders already there, one folded row per key.
INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3", "loose")
SELECT gen_random_uuid()::text, "shop", "hour", "outcome", "source",
       SUM(CAST("quarter" = 0 AS integer)), SUM(CAST("quarter" = 1 AS integer)),
       SUM(CAST("quarter" = 2 AS integer)), SUM(CAST("quarter" = 3 AS integer)), false
FROM (SELECT "shop", "outcome", COALESCE("captureSource", '') AS "source",
             CAST(EXTRACT(EPOCH FROM date_trunc('hour', "createdAt")) / 3600 AS integer) AS "hour",
             CAST(EXTRACT(MINUTE FROM "createdAt") AS integer) / 15 AS "quarter"
      FROM "Verification" WHERE "outcome" IS NOT NULL) AS "decided"
GROUP BY "shop", "hour", "outcome", "source";

-- The rows are written by PL/pgSQL itself, whose statements keep their plans on the connection: a
-- SQL function called for each row was planned again on every call, and made the verdict's
-- UPDATE the costliest statement of an order.
CREATE FUNCTION "Verification_hour_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."outcome" IS NOT NULL THEN
    INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
    VALUES (gen_random_uuid()::text, OLD."shop", CAST(EXTRACT(EPOCH FROM date_trunc('hour', OLD."createdAt")) / 3600 AS integer),
            OLD."outcome", COALESCE(OLD."captureSource", ''),
            -CAST(EXTRACT(MINUTE FROM OLD."createdAt") < 15 AS integer),
            -CAST(EXTRACT(MINUTE FROM OLD."createdAt") >= 15 AND EXTRACT(MINUTE FROM OLD."createdAt") < 30 AS integer),
            -CAST(EXTRACT(MINUTE FROM OLD."createdAt") >= 30 AND EXTRACT(MINUTE FROM OLD."createdAt") < 45 AS integer),
            -CAST(EXTRACT(MINUTE FROM OLD."createdAt") >= 45 AS integer));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."outcome" IS NOT NULL THEN
    INSERT INTO "VerificationHour" ("id", "shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3")
    VALUES (gen_random_uuid()::text, NEW."shop", CAST(EXTRACT(EPOCH FROM date_trunc('hour', NEW."createdAt")) / 3600 AS integer),
            NEW."outcome", COALESCE(NEW."captureSource", ''),
            CAST(EXTRACT(MINUTE FROM NEW."createdAt") < 15 AS integer),
            CAST(EXTRACT(MINUTE FROM NEW."createdAt") >= 15 AND EXTRACT(MINUTE FROM NEW."createdAt") < 30 AS integer),
            CAST(EXTRACT(MINUTE FROM NEW."createdAt") >= 30 AND EXTRACT(MINUTE FROM NEW."createdAt") < 45 AS integer),
            CAST(EXTRACT(MINUTE FROM NEW."createdAt") >= 45 AS integer));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Verification_hour_insert" AFTER INSERT ON "Verification"
  FOR EACH ROW WHEN (NEW."outcome" IS NOT NULL) EXECUTE FUNCTION "Verification_hour_rollup"();

CREATE TRIGGER "Verification_hour_delete" AFTER DELETE ON "Verification"
  FOR EACH ROW WHEN (OLD."outcome" IS NOT NULL) EXECUTE FUNCTION "Verification_hour_rollup"();

-- As in SQLite, an update that leaves all four columns as they were appends nothing, and so does
-- one that changes an undecided order (the capture source set while it is in progress).
CREATE TRIGGER "Verification_hour_update"
  AFTER UPDATE OF "shop", "createdAt", "outcome", "captureSource" ON "Verification"
  FOR EACH ROW WHEN (OLD."outcome" IS DISTINCT FROM NEW."outcome"
                     OR (NEW."outcome" IS NOT NULL AND (OLD."captureSource" IS DISTINCT FROM NEW."captureSource"
                                                         OR OLD."createdAt" <> NEW."createdAt" OR OLD."shop" <> NEW."shop")))
  EXECUTE FUNCTION "Verification_hour_rollup"();
