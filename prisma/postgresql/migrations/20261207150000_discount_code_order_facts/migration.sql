-- AlterTable
ALTER TABLE "OrderDiscountCode" ADD COLUMN     "clicked" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "hijacked" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "orderCreatedAt" TIMESTAMP(3),
ADD COLUMN     "redirectedMinor" BIGINT NOT NULL DEFAULT 0;

-- The PostgreSQL port of prisma/migrations/20261207150000_discount_code_order_facts: a code's row
-- carries its order's facts the Codes page counts it by, taken when the row is written and again
-- whenever they change, in the same transaction.

-- Backfill from the orders and commissions already there.
UPDATE "OrderDiscountCode" AS d SET
  "clicked" = v."clickId" IS NOT NULL,
  "hijacked" = COALESCE(v."outcome" = 'hijacked', false),
  "orderCreatedAt" = v."orderCreatedAt",
  "redirectedMinor" = COALESCE((SELECT CASE WHEN c."redirected" THEN c."amountMinor" ELSE 0 END FROM "Commission" AS c
                                WHERE c."verificationId" = d."verificationId"), 0)
FROM "Verification" AS v WHERE v."id" = d."verificationId";

-- Before the insert, so the row is written once with its facts.
CREATE FUNCTION "OrderDiscountCode_order_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT v."clickId" IS NOT NULL, COALESCE(v."outcome" = 'hijacked', false), v."orderCreatedAt"
    INTO NEW."clicked", NEW."hijacked", NEW."orderCreatedAt"
    FROM "Verification" AS v WHERE v."id" = NEW."verificationId";
  NEW."clicked" := COALESCE(NEW."clicked", false);
  NEW."hijacked" := COALESCE(NEW."hijacked", false);
  NEW."redirectedMinor" := COALESCE((SELECT CASE WHEN c."redirected" THEN c."amountMinor" ELSE 0 END FROM "Commission" AS c
                                     WHERE c."verificationId" = NEW."verificationId"), 0);
  RETURN NEW;
END
$$;

CREATE TRIGGER "OrderDiscountCode_order_facts" BEFORE INSERT ON "OrderDiscountCode"
  FOR EACH ROW EXECUTE FUNCTION "OrderDiscountCode_order_facts"();

CREATE FUNCTION "Verification_discount_code_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "OrderDiscountCode" SET "clicked" = NEW."clickId" IS NOT NULL, "hijacked" = COALESCE(NEW."outcome" = 'hijacked', false),
                                 "orderCreatedAt" = NEW."orderCreatedAt"
  WHERE "verificationId" = NEW."id";
  RETURN NULL;
END
$$;

CREATE TRIGGER "Verification_discount_code_facts"
  AFTER UPDATE OF "outcome", "clickId", "orderCreatedAt" ON "Verification"
  FOR EACH ROW WHEN (OLD."outcome" IS DISTINCT FROM NEW."outcome" OR OLD."clickId" IS DISTINCT FROM NEW."clickId"
                     OR OLD."orderCreatedAt" IS DISTINCT FROM NEW."orderCreatedAt")
  EXECUTE FUNCTION "Verification_discount_code_facts"();

CREATE FUNCTION "Commission_discount_code_facts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD."verificationId" IS DISTINCT FROM NEW."verificationId") THEN
    UPDATE "OrderDiscountCode" SET "redirectedMinor" = 0 WHERE "verificationId" = OLD."verificationId";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "OrderDiscountCode" SET "redirectedMinor" = CASE WHEN NEW."redirected" THEN NEW."amountMinor" ELSE 0 END
    WHERE "verificationId" = NEW."verificationId";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Commission_discount_code_insert" AFTER INSERT ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_discount_code_facts"();

CREATE TRIGGER "Commission_discount_code_delete" AFTER DELETE ON "Commission"
  FOR EACH ROW EXECUTE FUNCTION "Commission_discount_code_facts"();

CREATE TRIGGER "Commission_discount_code_update" AFTER UPDATE OF "verificationId", "redirected", "amountMinor" ON "Commission"
  FOR EACH ROW WHEN (OLD."verificationId" IS DISTINCT FROM NEW."verificationId" OR OLD."redirected" IS DISTINCT FROM NEW."redirected"
                     OR OLD."amountMinor" IS DISTINCT FROM NEW."amountMinor")
  EXECUTE FUNCTION "Commission_discount_code_facts"();
