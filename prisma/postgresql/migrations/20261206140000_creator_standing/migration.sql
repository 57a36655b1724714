-- CreateTable
CREATE TABLE "CreatorClaim" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "verificationId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "orderName" TEXT,
    "clickId" TEXT,
    "outcome" TEXT NOT NULL,
    "signals" TEXT NOT NULL,
    "tampering" BOOLEAN NOT NULL,
    "orderAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CreatorClaim_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreatorStanding" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "evidenceFrom" TIMESTAMP(3),
    "suspectedAt" TIMESTAMP(3),
    "suspectedAfterOrders" INTEGER,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CreatorStanding_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreatorDecision" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "by" TEXT,
    "at" TIMESTAMP(3) NOT NULL,
    "changes" TEXT NOT NULL,
    "undoneAt" TIMESTAMP(3),
    "undoneBy" TEXT,

    CONSTRAINT "CreatorDecision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CreatorClaim_shop_creatorId_orderAt_idx" ON "CreatorClaim"("shop", "creatorId", "orderAt");

-- CreateIndex
CREATE UNIQUE INDEX "CreatorClaim_verificationId_creatorId_key" ON "CreatorClaim"("verificationId", "creatorId");

-- CreateIndex
CREATE INDEX "CreatorStanding_shop_state_idx" ON "CreatorStanding"("shop", "state");

-- CreateIndex
CREATE UNIQUE INDEX "CreatorStanding_shop_creatorId_key" ON "CreatorStanding"("shop", "creatorId");

-- CreateIndex
CREATE INDEX "CreatorDecision_shop_creatorId_at_idx" ON "CreatorDecision"("shop", "creatorId", "at");
