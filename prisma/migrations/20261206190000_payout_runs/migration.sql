-- CreateTable
CREATE TABLE "PayoutRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "senderBatchId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'intent',
    "providerBatchId" TEXT,
    "batchStatus" TEXT,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" DATETIME,
    "settledAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PayoutSettings" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "defaultMethod" TEXT NOT NULL DEFAULT 'manual',
    "paypalEnvironment" TEXT NOT NULL DEFAULT 'sandbox',
    "paypalCredentials" TEXT,
    "paypalOrigin" TEXT,
    "paypalClientIdLast4" TEXT NOT NULL DEFAULT '',
    "paypalSecretLast4" TEXT NOT NULL DEFAULT '',
    "paypalWebhookId" TEXT NOT NULL DEFAULT '',
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CreatorPayoutMethod" (
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shop", "creatorId")
);

-- CreateTable
CREATE TABLE "PaypalEvent" (
    "shop" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "itemId" TEXT,
    "senderItemId" TEXT,
    "status" TEXT,
    "outcome" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("shop", "eventId")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Payout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "paidOn" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "voidedAt" DATETIME,
    "voidedBy" TEXT,
    "voidReason" TEXT,
    "method" TEXT NOT NULL DEFAULT 'manual',
    "runId" TEXT,
    "providerItemId" TEXT,
    "providerStatus" TEXT,
    "settledAt" DATETIME
);
INSERT INTO "new_Payout" ("createdAt", "id", "idempotencyKey", "paidOn", "reference", "shop", "voidReason", "voidedAt", "voidedBy") SELECT "createdAt", "id", "idempotencyKey", "paidOn", "reference", "shop", "voidReason", "voidedAt", "voidedBy" FROM "Payout";
DROP TABLE "Payout";
ALTER TABLE "new_Payout" RENAME TO "Payout";
CREATE INDEX "Payout_shop_createdAt_idx" ON "Payout"("shop", "createdAt");
CREATE INDEX "Payout_runId_idx" ON "Payout"("runId");
CREATE UNIQUE INDEX "Payout_shop_idempotencyKey_key" ON "Payout"("shop", "idempotencyKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRun_senderBatchId_key" ON "PayoutRun"("senderBatchId");

-- CreateIndex
CREATE INDEX "PayoutRun_shop_createdAt_idx" ON "PayoutRun"("shop", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRun_shop_idempotencyKey_key" ON "PayoutRun"("shop", "idempotencyKey");
