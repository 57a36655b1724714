-- AlterTable
ALTER TABLE "LandingTouch" ADD COLUMN "source" TEXT;

-- AlterTable
ALTER TABLE "PixelSighting" ADD COLUMN "source" TEXT;

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN "networkSource" TEXT;

-- CreateIndex
CREATE INDEX "LandingTouch_shop_source_seenAt_idx" ON "LandingTouch"("shop", "source", "seenAt");

-- CreateIndex
CREATE INDEX "PixelSighting_shop_source_seenAt_idx" ON "PixelSighting"("shop", "source", "seenAt");
