-- Baseline of the PostgreSQL set: the models as the SQLite migrations up to
-- 20261122100000_api_key_origin leave them (PostgreSQL support began with this release, so
-- there is no earlier PostgreSQL database to carry forward), generated offline with
-- prisma migrate diff --from-empty --to-schema-datamodel prisma/postgresql/schema.prisma --script.

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "isOnline" BOOLEAN NOT NULL DEFAULT false,
    "scope" TEXT,
    "expires" TIMESTAMP(3),
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
    "refreshTokenExpires" TIMESTAMP(3),

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShopSettings" (
    "shop" TEXT NOT NULL,
    "clickServiceUrl" TEXT NOT NULL,
    "apiKeySealed" TEXT NOT NULL,
    "apiKeyOrigin" TEXT,
    "apiKeyLast4" TEXT NOT NULL,
    "tagParams" TEXT NOT NULL DEFAULT '["tag"]',
    "hijackTag" TEXT NOT NULL DEFAULT 'affiliate-hijacked',
    "commissionRate" TEXT NOT NULL DEFAULT '10',
    "orderValueBasis" TEXT NOT NULL DEFAULT 'subtotal_after_discounts',
    "autoVerify" BOOLEAN NOT NULL DEFAULT true,
    "credentialsRejectedAt" TIMESTAMP(3),
    "uninstalledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ShopSettings_pkey" PRIMARY KEY ("shop")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "webhookId" TEXT,
    "apiVersion" TEXT,
    "orderId" TEXT,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "payload" TEXT,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Verification" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderGid" TEXT NOT NULL,
    "orderName" TEXT,
    "orderCreatedAt" TIMESTAMP(3) NOT NULL,
    "outcome" TEXT,
    "reason" TEXT,
    "captureSource" TEXT,
    "clickId" TEXT,
    "arrivedTag" TEXT,
    "capturedAt" TIMESTAMP(3),
    "orderValue" TEXT,
    "currency" TEXT,
    "deadlineAt" TIMESTAMP(3),
    "reportStartedAt" TIMESTAMP(3),
    "reportConfirmed" BOOLEAN,
    "expectedTag" TEXT,
    "creatorId" TEXT,
    "verdict" TEXT,
    "hijacked" BOOLEAN,
    "recorded" BOOLEAN,
    "tagStartedAt" TIMESTAMP(3),
    "taggedAt" TIMESTAMP(3),
    "evidenceAt" TIMESTAMP(3),
    "lastError" TEXT,
    "orderFacts" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "Verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "runAt" TIMESTAMP(3) NOT NULL,
    "rerun" BOOLEAN NOT NULL DEFAULT false,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VerificationAttempt" (
    "id" TEXT NOT NULL,
    "verificationId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "step" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "VerificationAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Commission" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Commission_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DataRequest" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "customerId" TEXT,
    "ordersAsked" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DataRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CommissionDay" (
    "shop" TEXT NOT NULL,
    "day" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "redirected" BOOLEAN NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "records" INTEGER NOT NULL,

    CONSTRAINT "CommissionDay_pkey" PRIMARY KEY ("shop","day","currency","status","redirected")
);

-- CreateIndex
CREATE INDEX "Session_shop_idx" ON "Session"("shop");

-- CreateIndex
CREATE INDEX "WebhookDelivery_shop_receivedAt_idx" ON "WebhookDelivery"("shop", "receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_shop_topic_eventId_key" ON "WebhookDelivery"("shop", "topic", "eventId");

-- CreateIndex
CREATE INDEX "Verification_shop_createdAt_idx" ON "Verification"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "Verification_shop_outcome_createdAt_arrivedTag_idx" ON "Verification"("shop", "outcome", "createdAt", "arrivedTag");

-- CreateIndex
CREATE UNIQUE INDEX "Verification_shop_orderId_key" ON "Verification"("shop", "orderId");

-- CreateIndex
CREATE INDEX "Job_state_runAt_idx" ON "Job"("state", "runAt");

-- CreateIndex
CREATE INDEX "Job_state_leaseExpiresAt_idx" ON "Job"("state", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "Job_shop_kind_state_idx" ON "Job"("shop", "kind", "state");

-- CreateIndex
CREATE UNIQUE INDEX "Job_kind_subject_key" ON "Job"("kind", "subject");

-- CreateIndex
CREATE INDEX "VerificationAttempt_verificationId_number_idx" ON "VerificationAttempt"("verificationId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "Commission_verificationId_key" ON "Commission"("verificationId");

-- CreateIndex
CREATE INDEX "Commission_shop_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "createdAt", "currency", "amountMinor");

-- CreateIndex
CREATE INDEX "Commission_shop_creatorId_createdAt_idx" ON "Commission"("shop", "creatorId", "createdAt");

-- CreateIndex
CREATE INDEX "Commission_shop_status_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "status", "createdAt", "currency", "amountMinor");

-- CreateIndex
CREATE INDEX "Commission_shop_redirected_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "redirected", "createdAt", "currency", "amountMinor");

-- CreateIndex
CREATE UNIQUE INDEX "Commission_shop_orderId_key" ON "Commission"("shop", "orderId");

-- CreateIndex
CREATE INDEX "DataRequest_shop_idx" ON "DataRequest"("shop");

-- AddForeignKey
ALTER TABLE "VerificationAttempt" ADD CONSTRAINT "VerificationAttempt_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Commission" ADD CONSTRAINT "Commission_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification"("id") ON DELETE CASCADE ON UPDATE CASCADE;

