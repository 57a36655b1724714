-- CreateIndex
CREATE INDEX "Verification_shop_captureSource_createdAt_idx" ON "Verification"("shop", "captureSource", "createdAt");
