-- The PostgreSQL port of prisma/migrations/20261121062000_commission_day_rollup: triggers keep
-- "CommissionDay" (per shop, day, currency, status and redirected) equal to the sums of the
-- commission records, moving a record's amount between day rows in the same transaction as
-- every insert, update and delete. The day is the UTC date of "createdAt" (timestamp(3), kept
-- in UTC by Prisma) counted in days since 1970-01-01, as SQLite's Unix milliseconds / 86400000.

-- Backfill from the records already there.
INSERT INTO "CommissionDay" ("shop", "day", "currency", "status", "redirected", "amountMinor", "records")
SELECT "shop", "createdAt"::date - DATE '1970-01-01', "currency", "status", "redirected", SUM("amountMinor"), COUNT(*)
FROM "Commission" GROUP BY 1, 2, 3, 4, 5;

CREATE FUNCTION "Commission_day_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "CommissionDay" SET "amountMinor" = "amountMinor" - OLD."amountMinor", "records" = "records" - 1
    WHERE "shop" = OLD."shop" AND "day" = OLD."createdAt"::date - DATE '1970-01-01'
      AND "currency" = OLD."currency" AND "status" = OLD."status" AND "redirected" = OLD."redirected";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "CommissionDay" ("shop", "day", "currency", "status", "redirected", "amountMinor", "records")
    VALUES (NEW."shop", NEW."createdAt"::date - DATE '1970-01-01', NEW."currency", NEW."status", NEW."redirected",
            NEW."amountMinor", 1)
    ON CONFLICT ("shop", "day", "currency", "status", "redirected")
    DO UPDATE SET "amountMinor" = "CommissionDay"."amountMinor" + excluded."amountMinor",
                  "records" = "CommissionDay"."records" + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Commission_day_insert" AFTER INSERT ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_day_rollup"();

CREATE TRIGGER "Commission_day_delete" AFTER DELETE ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_day_rollup"();

-- As in SQLite, an update that sets none of these columns leaves the rollup alone.
CREATE TRIGGER "Commission_day_update"
  AFTER UPDATE OF "shop", "createdAt", "currency", "status", "redirected", "amountMinor" ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_day_rollup"();
