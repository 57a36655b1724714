-- AlterTable
ALTER TABLE "PixelSighting" ADD COLUMN "checkoutToken" TEXT;

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN "contest" TEXT;

-- CreateIndex
CREATE INDEX "PixelSighting_shop_checkoutToken_idx" ON "PixelSighting"("shop", "checkoutToken");
