-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "attributionWindowDays" INTEGER NOT NULL DEFAULT 30,
ADD COLUMN     "landingLookupsPerHour" INTEGER NOT NULL DEFAULT 1000;

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "tamperEvidence" TEXT,
ADD COLUMN     "tampered" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "verdictSource" TEXT;

-- CreateTable
CREATE TABLE "LandingTouch" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "cartToken" TEXT NOT NULL,
    "clickId" TEXT NOT NULL,
    "tag" TEXT,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LandingTouch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClickRecord" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "clickId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "expectedTag" TEXT,
    "creatorId" TEXT,
    "clickedAt" TIMESTAMP(3),
    "lookedUpAt" TIMESTAMP(3),
    "firstSeenAt" TIMESTAMP(3) NOT NULL,
    "lastError" TEXT,

    CONSTRAINT "ClickRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "LandingTouch_shop_cartToken_seenAt_idx" ON "LandingTouch"("shop", "cartToken", "seenAt");

-- CreateIndex
CREATE INDEX "LandingTouch_shop_seenAt_idx" ON "LandingTouch"("shop", "seenAt");

-- CreateIndex
CREATE INDEX "ClickRecord_shop_firstSeenAt_idx" ON "ClickRecord"("shop", "firstSeenAt");

-- CreateIndex
CREATE UNIQUE INDEX "ClickRecord_shop_clickId_key" ON "ClickRecord"("shop", "clickId");
