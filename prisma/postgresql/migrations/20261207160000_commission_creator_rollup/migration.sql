-- CreateTable
CREATE TABLE "CommissionCreator" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "redirected" BOOLEAN NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "records" INTEGER NOT NULL,
    "loose" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "CommissionCreator_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CommissionCreator_shop_creatorId_idx" ON "CommissionCreator"("shop", "creatorId");

-- CreateIndex
CREATE INDEX "CommissionCreator_loose_idx" ON "CommissionCreator"("loose");


-- The PostgreSQL port of prisma/migrations/20261207160000_commission_creator_rollup: every change
-- to a commission appends a row of "CommissionCreator" that takes its amount out of its old key or
-- puts it in its new one, in the same transaction; rows are only ever appended, so two orders of
-- the same creator never wait on each other's row lock, and the fold merges them.

-- Backfill from the records already there, one folded row per key.
INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records", "loose")
SELECT gen_random_uuid()::text, "shop", "creatorId", "currency", "status", "redirected", SUM("amountMinor"), COUNT(*), false
FROM "Commission" GROUP BY "shop", "creatorId", "currency", "status", "redirected";

CREATE FUNCTION "Commission_creator_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
    VALUES (gen_random_uuid()::text, OLD."shop", OLD."creatorId", OLD."currency", OLD."status", OLD."redirected", -OLD."amountMinor", -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "CommissionCreator" ("id", "shop", "creatorId", "currency", "status", "redirected", "amountMinor", "records")
    VALUES (gen_random_uuid()::text, NEW."shop", NEW."creatorId", NEW."currency", NEW."status", NEW."redirected", NEW."amountMinor", 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Commission_creator_insert" AFTER INSERT ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_creator_rollup"();

CREATE TRIGGER "Commission_creator_delete" AFTER DELETE ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_creator_rollup"();

-- As in SQLite, an update that leaves all six columns as they were appends nothing.
CREATE TRIGGER "Commission_creator_update"
  AFTER UPDATE OF "shop", "creatorId", "currency", "status", "redirected", "amountMinor" ON "Commission"
  FOR EACH ROW WHEN (OLD."shop" IS DISTINCT FROM NEW."shop" OR OLD."creatorId" IS DISTINCT FROM NEW."creatorId"
                     OR OLD."currency" IS DISTINCT FROM NEW."currency" OR OLD."status" IS DISTINCT FROM NEW."status"
                     OR OLD."redirected" IS DISTINCT FROM NEW."redirected" OR OLD."amountMinor" IS DISTINCT FROM NEW."amountMinor")
  EXECUTE FUNCTION "Commission_creator_rollup"();
