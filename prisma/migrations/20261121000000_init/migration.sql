-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "isOnline" BOOLEAN NOT NULL DEFAULT false,
    "scope" TEXT,
    "expires" DATETIME,
    "accessToken" TEXT NOT NULL,
    "userId" BIGINT,
    "firstName" TEXT,
    "lastName" TEXT,
    "email" TEXT,
    "accountOwner" BOOLEAN,
    "locale" TEXT,
    "collaborator" BOOLEAN,
    "emailVerified" BOOLEAN,
    "refreshToken" TEXT,
    "refreshTokenExpires" DATETIME
);

-- CreateTable
CREATE TABLE "ShopSettings" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "clickServiceUrl" TEXT NOT NULL,
    "apiKeySealed" TEXT NOT NULL,
    "apiKeyLast4" TEXT NOT NULL,
    "tagParams" TEXT NOT NULL DEFAULT '["tag"]',
    "hijackTag" TEXT NOT NULL DEFAULT 'affiliate-hijacked',
    "commissionRate" TEXT NOT NULL DEFAULT '10',
    "orderValueBasis" TEXT NOT NULL DEFAULT 'subtotal_after_discounts',
    "autoVerify" BOOLEAN NOT NULL DEFAULT true,
    "credentialsRejectedAt" DATETIME,
    "uninstalledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "webhookId" TEXT,
    "apiVersion" TEXT,
    "orderId" TEXT,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "payload" TEXT,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Verification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderGid" TEXT NOT NULL,
    "orderName" TEXT,
    "orderCreatedAt" DATETIME NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "outcome" TEXT,
    "reason" TEXT,
    "captureSource" TEXT,
    "clickId" TEXT,
    "arrivedTag" TEXT,
    "capturedAt" DATETIME,
    "orderValue" TEXT,
    "currency" TEXT,
    "expectedTag" TEXT,
    "creatorId" TEXT,
    "verdict" TEXT,
    "recorded" BOOLEAN,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deadlineAt" DATETIME,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "taggedAt" DATETIME,
    "evidenceAt" DATETIME,
    "lastError" TEXT,
    "payload" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME
);

-- CreateTable
CREATE TABLE "VerificationAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "verificationId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "step" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "error" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "VerificationAttempt_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Commission" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "verificationId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "creatorId" TEXT NOT NULL,
    "expectedTag" TEXT NOT NULL,
    "arrivedTag" TEXT NOT NULL,
    "orderValue" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "redirected" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Commission_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DataRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "customerId" TEXT,
    "ordersAsked" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Session_shop_idx" ON "Session"("shop");

-- CreateIndex
CREATE INDEX "WebhookDelivery_shop_receivedAt_idx" ON "WebhookDelivery"("shop", "receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_shop_topic_eventId_key" ON "WebhookDelivery"("shop", "topic", "eventId");

-- CreateIndex
CREATE INDEX "Verification_state_nextAttemptAt_idx" ON "Verification"("state", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Verification_shop_createdAt_idx" ON "Verification"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "Verification_shop_outcome_createdAt_idx" ON "Verification"("shop", "outcome", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Verification_shop_orderId_key" ON "Verification"("shop", "orderId");

-- CreateIndex
CREATE INDEX "VerificationAttempt_verificationId_number_idx" ON "VerificationAttempt"("verificationId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "Commission_verificationId_key" ON "Commission"("verificationId");

-- CreateIndex
CREATE INDEX "Commission_shop_createdAt_idx" ON "Commission"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "Commission_shop_creatorId_createdAt_idx" ON "Commission"("shop", "creatorId", "createdAt");

-- CreateIndex
CREATE INDEX "Commission_shop_status_createdAt_idx" ON "Commission"("shop", "status", "createdAt");

-- CreateIndex
CREATE INDEX "Commission_shop_redirected_createdAt_idx" ON "Commission"("shop", "redirected", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Commission_shop_orderId_key" ON "Commission"("shop", "orderId");

-- CreateIndex
CREATE INDEX "DataRequest_shop_idx" ON "DataRequest"("shop");

