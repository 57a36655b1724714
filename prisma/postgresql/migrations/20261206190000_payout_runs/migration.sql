-- AlterTable
ALTER TABLE "Payout" ADD COLUMN     "method" TEXT NOT NULL DEFAULT 'manual',
ADD COLUMN     "providerItemId" TEXT,
ADD COLUMN     "providerStatus" TEXT,
ADD COLUMN     "runId" TEXT,
ADD COLUMN     "settledAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "PayoutRun" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "senderBatchId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'intent',
    "providerBatchId" TEXT,
    "batchStatus" TEXT,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),
    "settledAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PayoutSettings" (
    "shop" TEXT NOT NULL,
    "defaultMethod" TEXT NOT NULL DEFAULT 'manual',
    "paypalEnvironment" TEXT NOT NULL DEFAULT 'sandbox',
    "paypalCredentials" TEXT,
    "paypalOrigin" TEXT,
    "paypalClientIdLast4" TEXT NOT NULL DEFAULT '',
    "paypalSecretLast4" TEXT NOT NULL DEFAULT '',
    "paypalWebhookId" TEXT NOT NULL DEFAULT '',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutSettings_pkey" PRIMARY KEY ("shop")
);

-- CreateTable
CREATE TABLE "CreatorPayoutMethod" (
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CreatorPayoutMethod_pkey" PRIMARY KEY ("shop","creatorId")
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
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PaypalEvent_pkey" PRIMARY KEY ("shop","eventId")
);

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRun_senderBatchId_key" ON "PayoutRun"("senderBatchId");

-- CreateIndex
CREATE INDEX "PayoutRun_shop_createdAt_idx" ON "PayoutRun"("shop", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRun_shop_idempotencyKey_key" ON "PayoutRun"("shop", "idempotencyKey");

-- CreateIndex
CREATE INDEX "Payout_runId_idx" ON "Payout"("runId");
