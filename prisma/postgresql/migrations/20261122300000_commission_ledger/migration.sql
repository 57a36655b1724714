-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "creatorRates" TEXT NOT NULL DEFAULT '{}',
ADD COLUMN     "holdDays" INTEGER NOT NULL DEFAULT 30;

-- AlterTable
ALTER TABLE "Commission" ADD COLUMN     "approvedAt" TIMESTAMP(3),
ADD COLUMN     "basis" TEXT NOT NULL DEFAULT 'subtotal_after_discounts',
ADD COLUMN     "holdUntil" TIMESTAMP(3),
ADD COLUMN     "paidAt" TIMESTAMP(3),
ADD COLUMN     "payoutId" TEXT,
ADD COLUMN     "refunded" TEXT NOT NULL DEFAULT '0',
ADD COLUMN     "reversedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "CommissionEntry" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "commissionId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "amount" TEXT NOT NULL,
    "eventId" TEXT,
    "payoutId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommissionEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrderEvent" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "facts" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "appliedAt" TIMESTAMP(3),
    "result" TEXT,

    CONSTRAINT "OrderEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Payout" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "paidOn" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Payout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PayoutLine" (
    "id" TEXT NOT NULL,
    "payoutId" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "amount" TEXT NOT NULL,
    "records" INTEGER NOT NULL,

    CONSTRAINT "PayoutLine_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE INDEX "Commission_status_holdUntil_idx" ON "Commission"("status", "holdUntil");

-- CreateIndex
CREATE INDEX "Commission_shop_status_creatorId_currency_idx" ON "Commission"("shop", "status", "creatorId", "currency");

-- AddForeignKey
ALTER TABLE "CommissionEntry" ADD CONSTRAINT "CommissionEntry_commissionId_fkey" FOREIGN KEY ("commissionId") REFERENCES "Commission"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PayoutLine" ADD CONSTRAINT "PayoutLine_payoutId_fkey" FOREIGN KEY ("payoutId") REFERENCES "Payout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill, as in the SQLite migration of the same name: every existing record becomes its
-- credit entry, held 30 days (the default) from its order, on the shop's current order-value
-- basis; a "void" record (no longer a status) is reversed, with the entry that takes it back.
UPDATE "Commission" SET
  "holdUntil" = (SELECT "orderCreatedAt" FROM "Verification" WHERE "Verification"."id" = "Commission"."verificationId") + INTERVAL '30 days',
  "basis" = COALESCE((SELECT "orderValueBasis" FROM "ShopSettings" WHERE "ShopSettings"."shop" = "Commission"."shop"), 'subtotal_after_discounts');

INSERT INTO "CommissionEntry" ("id", "shop", "commissionId", "kind", "amountMinor", "amount", "createdAt")
SELECT 'credit-' || "id", "shop", "id", 'credit', "amountMinor", "amount", "createdAt" FROM "Commission";

INSERT INTO "CommissionEntry" ("id", "shop", "commissionId", "kind", "amountMinor", "amount", "createdAt")
SELECT 'reversal-' || "id", "shop", "id", 'reversal', -"amountMinor", CASE WHEN "amountMinor" = 0 THEN "amount" ELSE '-' || "amount" END, "createdAt"
FROM "Commission" WHERE "status" = 'void';

UPDATE "Commission" SET "status" = 'reversed', "reversedAt" = "createdAt", "amountMinor" = 0,
  "amount" = CASE WHEN strpos("amount", '.') > 0 THEN '0.' || repeat('0', length("amount") - strpos("amount", '.')) ELSE '0' END
WHERE "status" = 'void';
