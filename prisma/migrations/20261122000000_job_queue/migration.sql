-- The job half of Verification moves to a generic Job table owned by app/queue (decision 009);
-- the order facts column gets the name of what it holds; the storefront's capture source is
-- called cart_attributes everywhere.

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "runAt" DATETIME NOT NULL,
    "rerun" BOOLEAN NOT NULL DEFAULT false,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- Every existing verification keeps its place in the queue.
INSERT INTO "Job" ("id", "shop", "kind", "subject", "state", "attempts", "runAt", "leaseOwner", "leaseExpiresAt", "lastError", "createdAt", "updatedAt")
SELECT 'job_' || "id", "shop", 'verify-order', "id",
       CASE "state" WHEN 'processing' THEN 'running' ELSE "state" END,
       "attempts", "nextAttemptAt", "leaseOwner", "leaseExpiresAt", "lastError", "createdAt", "updatedAt"
FROM "Verification";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
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
INSERT INTO "new_Verification" ("orderFacts", "arrivedTag", "captureSource", "capturedAt", "clickId", "completedAt", "createdAt", "creatorId", "currency", "deadlineAt", "evidenceAt", "expectedTag", "hijacked", "id", "lastError", "orderCreatedAt", "orderGid", "orderId", "orderName", "orderValue", "outcome", "reason", "recorded", "shop", "taggedAt", "updatedAt", "verdict") SELECT "payload", "arrivedTag", CASE "captureSource" WHEN 'note_attributes' THEN 'cart_attributes' ELSE "captureSource" END, "capturedAt", "clickId", "completedAt", "createdAt", "creatorId", "currency", "deadlineAt", "evidenceAt", "expectedTag", "hijacked", "id", "lastError", "orderCreatedAt", "orderGid", "orderId", "orderName", "orderValue", "outcome", "reason", "recorded", "shop", "taggedAt", "updatedAt", "verdict" FROM "Verification";
DROP TABLE "Verification";
ALTER TABLE "new_Verification" RENAME TO "Verification";
CREATE INDEX "Verification_shop_createdAt_idx" ON "Verification"("shop", "createdAt");
CREATE INDEX "Verification_shop_outcome_createdAt_arrivedTag_idx" ON "Verification"("shop", "outcome", "createdAt", "arrivedTag");
CREATE UNIQUE INDEX "Verification_shop_orderId_key" ON "Verification"("shop", "orderId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Job_state_runAt_idx" ON "Job"("state", "runAt");

-- CreateIndex
CREATE INDEX "Job_state_leaseExpiresAt_idx" ON "Job"("state", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "Job_shop_kind_state_idx" ON "Job"("shop", "kind", "state");

-- CreateIndex
CREATE UNIQUE INDEX "Job_kind_subject_key" ON "Job"("kind", "subject");

