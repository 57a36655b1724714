-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "witnesses" TEXT;

-- CreateTable
CREATE TABLE "PixelSighting" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clickId" TEXT,
    "tag" TEXT,
    "orderId" TEXT,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PixelSighting_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PixelSighting_shop_clientId_seenAt_idx" ON "PixelSighting"("shop", "clientId", "seenAt");

-- CreateIndex
CREATE INDEX "PixelSighting_shop_orderId_idx" ON "PixelSighting"("shop", "orderId");

-- CreateIndex
CREATE INDEX "PixelSighting_shop_seenAt_idx" ON "PixelSighting"("shop", "seenAt");

-- CreateIndex
CREATE UNIQUE INDEX "PixelSighting_shop_eventId_key" ON "PixelSighting"("shop", "eventId");
