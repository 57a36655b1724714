-- CreateIndex
CREATE INDEX "PixelSighting_shop_clickId_idx" ON "PixelSighting"("shop", "clickId");
