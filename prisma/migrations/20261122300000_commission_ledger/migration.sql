-- CreateTable
CREATE TABLE "CommissionEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "commissionId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "amount" TEXT NOT NULL,
    "eventId" TEXT,
    "payoutId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "CommissionEntry_commissionId_fkey" FOREIGN KEY ("commissionId") REFERENCES "Commission" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OrderEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "facts" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "appliedAt" DATETIME,
    "result" TEXT
);

-- CreateTable
CREATE TABLE "Payout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "paidOn" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "PayoutLine" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "payoutId" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "amount" TEXT NOT NULL,
    "records" INTEGER NOT NULL,
    CONSTRAINT "PayoutLine_payoutId_fkey" FOREIGN KEY ("payoutId") REFERENCES "Payout" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Written as ALTER TABLE rather than Prisma's table rebuild: a rebuild would drop the
-- CommissionDay rollup triggers on "Commission" and copy every record.
ALTER TABLE "Commission" ADD COLUMN "basis" TEXT NOT NULL DEFAULT 'subtotal_after_discounts';
ALTER TABLE "Commission" ADD COLUMN "refunded" TEXT NOT NULL DEFAULT '0';
ALTER TABLE "Commission" ADD COLUMN "holdUntil" DATETIME;
ALTER TABLE "Commission" ADD COLUMN "approvedAt" DATETIME;
ALTER TABLE "Commission" ADD COLUMN "paidAt" DATETIME;
ALTER TABLE "Commission" ADD COLUMN "payoutId" TEXT;
ALTER TABLE "Commission" ADD COLUMN "reversedAt" DATETIME;
CREATE INDEX "Commission_status_holdUntil_idx" ON "Commission"("status", "holdUntil");
CREATE INDEX "Commission_shop_status_creatorId_currency_idx" ON "Commission"("shop", "status", "creatorId", "currency");

ALTER TABLE "ShopSettings" ADD COLUMN "holdDays" INTEGER NOT NULL DEFAULT 30;
ALTER TABLE "ShopSettings" ADD COLUMN "creatorRates" TEXT NOT NULL DEFAULT '{}';

-- CreateIndex
CREATE INDEX "CommissionEntry_commissionId_createdAt_idx" ON "CommissionEntry"("commissionId", "createdAt");

-- CreateIndex
CREATE INDEX "CommissionEntry_shop_kind_payoutId_idx" ON "CommissionEntry"("shop", "kind", "payoutId");

-- CreateIndex
CREATE UNIQUE INDEX "CommissionEntry_commissionId_eventId_key" ON "CommissionEntry"("commissionId", "eventId");

-- CreateIndex
CREATE INDEX "OrderEvent_shop_orderId_appliedAt_idx" ON "OrderEvent"("shop", "orderId", "appliedAt");

-- CreateIndex
CREATE UNIQUE INDEX "OrderEvent_shop_kind_sourceId_key" ON "OrderEvent"("shop", "kind", "sourceId");

-- CreateIndex
CREATE INDEX "Payout_shop_createdAt_idx" ON "Payout"("shop", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Payout_shop_idempotencyKey_key" ON "Payout"("shop", "idempotencyKey");

-- CreateIndex
CREATE INDEX "PayoutLine_payoutId_idx" ON "PayoutLine"("payoutId");

-- Backfill: every existing record becomes its credit entry, held 30 days (the default) from
-- its order, on the shop's current order-value basis. "void" is no longer a status: such a
-- record is reversed, with the reversal entry that takes its amount back.
UPDATE "Commission" SET
  "holdUntil" = (SELECT "orderCreatedAt" FROM "Verification" WHERE "Verification"."id" = "Commission"."verificationId") + 30 * 86400000,
  "basis" = COALESCE((SELECT "orderValueBasis" FROM "ShopSettings" WHERE "ShopSettings"."shop" = "Commission"."shop"), 'subtotal_after_discounts');

INSERT INTO "CommissionEntry" ("id", "shop", "commissionId", "kind", "amountMinor", "amount", "createdAt")
SELECT 'credit-' || "id", "shop", "id", 'credit', "amountMinor", "amount", "createdAt" FROM "Commission";

INSERT INTO "CommissionEntry" ("id", "shop", "commissionId", "kind", "amountMinor", "amount", "createdAt")
SELECT 'reversal-' || "id", "shop", "id", 'reversal', -"amountMinor", CASE WHEN "amountMinor" = 0 THEN "amount" ELSE '-' || "amount" END, "createdAt"
FROM "Commission" WHERE "status" = 'void';

UPDATE "Commission" SET "status" = 'reversed', "reversedAt" = "createdAt", "amountMinor" = 0,
  "amount" = CASE WHEN instr("amount", '.') > 0 THEN '0.' || substr('000000', 1, length("amount") - instr("amount", '.')) ELSE '0' END
WHERE "status" = 'void';
