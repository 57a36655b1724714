-- CreateTable
CREATE TABLE "LandingTouch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "cartToken" TEXT NOT NULL,
    "clickId" TEXT NOT NULL,
    "tag" TEXT,
    "seenAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ClickRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "clickId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "expectedTag" TEXT,
    "creatorId" TEXT,
    "clickedAt" DATETIME,
    "lookedUpAt" DATETIME,
    "firstSeenAt" DATETIME NOT NULL,
    "lastError" TEXT
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ShopSettings" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "clickServiceUrl" TEXT NOT NULL,
    "apiKeySealed" TEXT NOT NULL,
    "apiKeyOrigin" TEXT,
    "apiKeyLast4" TEXT NOT NULL,
    "tagParams" TEXT NOT NULL DEFAULT '["tag"]',
    "hijackTag" TEXT NOT NULL DEFAULT 'affiliate-hijacked',
    "commissionRate" TEXT NOT NULL DEFAULT '10',
    "orderValueBasis" TEXT NOT NULL DEFAULT 'subtotal_after_discounts',
    "autoVerify" BOOLEAN NOT NULL DEFAULT true,
    "attributionWindowDays" INTEGER NOT NULL DEFAULT 30,
    "landingLookupsPerHour" INTEGER NOT NULL DEFAULT 1000,
    "credentialsRejectedAt" DATETIME,
    "uninstalledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_ShopSettings" ("apiKeyLast4", "apiKeyOrigin", "apiKeySealed", "autoVerify", "clickServiceUrl", "commissionRate", "createdAt", "credentialsRejectedAt", "hijackTag", "orderValueBasis", "shop", "tagParams", "uninstalledAt", "updatedAt") SELECT "apiKeyLast4", "apiKeyOrigin", "apiKeySealed", "autoVerify", "clickServiceUrl", "commissionRate", "createdAt", "credentialsRejectedAt", "hijackTag", "orderValueBasis", "shop", "tagParams", "uninstalledAt", "updatedAt" FROM "ShopSettings";
DROP TABLE "ShopSettings";
ALTER TABLE "new_ShopSettings" RENAME TO "ShopSettings";
CREATE TABLE "new_Verification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderGid" TEXT NOT NULL,
    "orderName" TEXT,
    "orderCreatedAt" DATETIME NOT NULL,
    "outcome" TEXT,
    "reason" TEXT,
    "captureSource" TEXT,
    "clickId" TEXT,
    "arrivedTag" TEXT,
    "capturedAt" DATETIME,
    "orderValue" TEXT,
    "currency" TEXT,
    "deadlineAt" DATETIME,
    "reportStartedAt" DATETIME,
    "reportConfirmed" BOOLEAN,
    "expectedTag" TEXT,
    "creatorId" TEXT,
    "verdict" TEXT,
    "verdictSource" TEXT,
    "tampered" BOOLEAN NOT NULL DEFAULT false,
    "tamperEvidence" TEXT,
    "hijacked" BOOLEAN,
    "recorded" BOOLEAN,
    "tagStartedAt" DATETIME,
    "taggedAt" DATETIME,
    "evidenceAt" DATETIME,
    "lastError" TEXT,
    "orderFacts" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME
);
INSERT INTO "new_Verification" ("arrivedTag", "captureSource", "capturedAt", "clickId", "completedAt", "createdAt", "creatorId", "currency", "deadlineAt", "evidenceAt", "expectedTag", "hijacked", "id", "lastError", "orderCreatedAt", "orderFacts", "orderGid", "orderId", "orderName", "orderValue", "outcome", "reason", "recorded", "reportConfirmed", "reportStartedAt", "shop", "tagStartedAt", "taggedAt", "updatedAt", "verdict") SELECT "arrivedTag", "captureSource", "capturedAt", "clickId", "completedAt", "createdAt", "creatorId", "currency", "deadlineAt", "evidenceAt", "expectedTag", "hijacked", "id", "lastError", "orderCreatedAt", "orderFacts", "orderGid", "orderId", "orderName", "orderValue", "outcome", "reason", "recorded", "reportConfirmed", "reportStartedAt", "shop", "tagStartedAt", "taggedAt", "updatedAt", "verdict" FROM "Verification";
DROP TABLE "Verification";
ALTER TABLE "new_Verification" RENAME TO "Verification";
CREATE INDEX "Verification_shop_createdAt_idx" ON "Verification"("shop", "createdAt");
CREATE INDEX "Verification_shop_outcome_createdAt_arrivedTag_idx" ON "Verification"("shop", "outcome", "createdAt", "arrivedTag");
CREATE UNIQUE INDEX "Verification_shop_orderId_key" ON "Verification"("shop", "orderId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "LandingTouch_shop_cartToken_seenAt_idx" ON "LandingTouch"("shop", "cartToken", "seenAt");

-- CreateIndex
CREATE INDEX "LandingTouch_shop_seenAt_idx" ON "LandingTouch"("shop", "seenAt");

-- CreateIndex
CREATE INDEX "ClickRecord_shop_firstSeenAt_idx" ON "ClickRecord"("shop", "firstSeenAt");

-- CreateIndex
CREATE UNIQUE INDEX "ClickRecord_shop_clickId_key" ON "ClickRecord"("shop", "clickId");
