-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_OrderDiscountCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "verificationId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "type" TEXT,
    "currency" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "clicked" BOOLEAN NOT NULL DEFAULT false,
    "hijacked" BOOLEAN NOT NULL DEFAULT false,
    "orderCreatedAt" DATETIME,
    "redirectedMinor" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "OrderDiscountCode_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_OrderDiscountCode" ("amount", "amountMinor", "code", "createdAt", "currency", "id", "orderId", "shop", "type", "verificationId") SELECT "amount", "amountMinor", "code", "createdAt", "currency", "id", "orderId", "shop", "type", "verificationId" FROM "OrderDiscountCode";
DROP TABLE "OrderDiscountCode";
ALTER TABLE "new_OrderDiscountCode" RENAME TO "OrderDiscountCode";
CREATE INDEX "OrderDiscountCode_verificationId_idx" ON "OrderDiscountCode"("verificationId");
CREATE INDEX "OrderDiscountCode_shop_createdAt_idx" ON "OrderDiscountCode"("shop", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Backfill from the orders and commissions already there.
UPDATE "OrderDiscountCode" SET
  "clicked" = COALESCE((SELECT "clickId" IS NOT NULL FROM "Verification" WHERE "id" = "OrderDiscountCode"."verificationId"), 0),
  "hijacked" = COALESCE((SELECT "outcome" = 'hijacked' FROM "Verification" WHERE "id" = "OrderDiscountCode"."verificationId"), 0),
  "orderCreatedAt" = (SELECT "orderCreatedAt" FROM "Verification" WHERE "id" = "OrderDiscountCode"."verificationId"),
  "redirectedMinor" = COALESCE((SELECT CASE WHEN "redirected" THEN "amountMinor" ELSE 0 END FROM "Commission"
                                WHERE "verificationId" = "OrderDiscountCode"."verificationId"), 0);

-- A code's row takes its order's facts when it is written (intake writes it with its order, whose
-- commission may already exist when a code arrives later), and again whenever they change.
CREATE TRIGGER "OrderDiscountCode_order_facts" AFTER INSERT ON "OrderDiscountCode" BEGIN
  UPDATE "OrderDiscountCode" SET
    "clicked" = COALESCE((SELECT "clickId" IS NOT NULL FROM "Verification" WHERE "id" = NEW."verificationId"), 0),
    "hijacked" = COALESCE((SELECT "outcome" = 'hijacked' FROM "Verification" WHERE "id" = NEW."verificationId"), 0),
    "orderCreatedAt" = (SELECT "orderCreatedAt" FROM "Verification" WHERE "id" = NEW."verificationId"),
    "redirectedMinor" = COALESCE((SELECT CASE WHEN "redirected" THEN "amountMinor" ELSE 0 END FROM "Commission"
                                  WHERE "verificationId" = NEW."verificationId"), 0)
  WHERE "id" = NEW."id";
END;

CREATE TRIGGER "Verification_discount_code_facts" AFTER UPDATE OF "outcome", "clickId", "orderCreatedAt" ON "Verification"
WHEN OLD."outcome" IS NOT NEW."outcome" OR OLD."clickId" IS NOT NEW."clickId" OR OLD."orderCreatedAt" IS NOT NEW."orderCreatedAt" BEGIN
  UPDATE "OrderDiscountCode" SET "clicked" = NEW."clickId" IS NOT NULL, "hijacked" = COALESCE(NEW."outcome" = 'hijacked', 0),
                                 "orderCreatedAt" = NEW."orderCreatedAt"
  WHERE "verificationId" = NEW."id";
END;

CREATE TRIGGER "Commission_discount_code_insert" AFTER INSERT ON "Commission" BEGIN
  UPDATE "OrderDiscountCode" SET "redirectedMinor" = CASE WHEN NEW."redirected" THEN NEW."amountMinor" ELSE 0 END
  WHERE "verificationId" = NEW."verificationId";
END;

CREATE TRIGGER "Commission_discount_code_update" AFTER UPDATE OF "verificationId", "redirected", "amountMinor" ON "Commission"
WHEN OLD."verificationId" IS NOT NEW."verificationId" OR OLD."redirected" IS NOT NEW."redirected" OR OLD."amountMinor" IS NOT NEW."amountMinor" BEGIN
  UPDATE "OrderDiscountCode" SET "redirectedMinor" = 0
  WHERE "verificationId" = OLD."verificationId" AND OLD."verificationId" IS NOT NEW."verificationId";
  UPDATE "OrderDiscountCode" SET "redirectedMinor" = CASE WHEN NEW."redirected" THEN NEW."amountMinor" ELSE 0 END
  WHERE "verificationId" = NEW."verificationId";
END;

CREATE TRIGGER "Commission_discount_code_delete" AFTER DELETE ON "Commission" BEGIN
  UPDATE "OrderDiscountCode" SET "redirectedMinor" = 0 WHERE "verificationId" = OLD."verificationId";
END;
