-- The PostgreSQL port of prisma/migrations/20261207180000_commission_day_appended: CommissionDay
-- kept by appending, as CommissionCreator is. The day rows were upserted, so every order of a
-- shop crediting on the same day waited on one row's lock until the transaction before it
-- committed: in a flash sale on one shop the commission's insert took 29 ms on average, 87 % of
-- the server's statement time. Now every change appends a row, and the fold merges them.

DROP TRIGGER "Commission_day_insert" ON "Commission";
DROP TRIGGER "Commission_day_delete" ON "Commission";
DROP TRIGGER "Commission_day_update" ON "Commission";
DROP FUNCTION "Commission_day_rollup"();

-- AlterTable (the rows kept, each already folded)
ALTER TABLE "CommissionDay" DROP CONSTRAINT "CommissionDay_pkey",
ADD COLUMN     "id" TEXT,
ADD COLUMN     "loose" BOOLEAN NOT NULL DEFAULT true;
UPDATE "CommissionDay" SET "id" = gen_random_uuid()::text, "loose" = false;
ALTER TABLE "CommissionDay" ALTER COLUMN "id" SET NOT NULL,
ADD CONSTRAINT "CommissionDay_pkey" PRIMARY KEY ("id");

-- CreateIndex
CREATE INDEX "CommissionDay_period_idx" ON "CommissionDay"("shop", "day", "currency", "status", "redirected", "amountMinor", "records");

-- CreateIndex
CREATE INDEX "CommissionDay_loose_idx" ON "CommissionDay"("loose");

-- The day is the UTC date of "createdAt" (timestamp(3), kept in UTC by Prisma) counted in days
-- since 1970-01-01, as SQLite's Unix milliseconds / 86400000.
CREATE FUNCTION "Commission_day_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
    VALUES (gen_random_uuid()::text, OLD."shop", OLD."createdAt"::date - DATE '1970-01-01', OLD."currency", OLD."status",
            OLD."redirected", -OLD."amountMinor", -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "CommissionDay" ("id", "shop", "day", "currency", "status", "redirected", "amountMinor", "records")
    VALUES (gen_random_uuid()::text, NEW."shop", NEW."createdAt"::date - DATE '1970-01-01', NEW."currency", NEW."status",
            NEW."redirected", NEW."amountMinor", 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Commission_day_insert" AFTER INSERT ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_day_rollup"();

CREATE TRIGGER "Commission_day_delete" AFTER DELETE ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_day_rollup"();

-- As in SQLite, an update that leaves all six columns as they were appends nothing.
CREATE TRIGGER "Commission_day_update"
  AFTER UPDATE OF "shop", "createdAt", "currency", "status", "redirected", "amountMinor" ON "Commission"
  FOR EACH ROW WHEN (OLD."shop" IS DISTINCT FROM NEW."shop" OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt"
                     OR OLD."currency" IS DISTINCT FROM NEW."currency" OR OLD."status" IS DISTINCT FROM NEW."status"
                     OR OLD."redirected" IS DISTINCT FROM NEW."redirected" OR OLD."amountMinor" IS DISTINCT FROM NEW."amountMinor")
  EXECUTE FUNCTION "Commission_day_rollup"();
