-- DropIndex
DROP INDEX "Verification_shop_createdAt_verdictSource_tampered_idx";

-- CreateIndex
CREATE INDEX "Verification_shop_createdAt_idx" ON "Verification"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "Verification_shop_verdictSource_createdAt_idx" ON "Verification"("shop", "verdictSource", "createdAt");

-- CreateIndex
CREATE INDEX "Verification_shop_tampered_createdAt_idx" ON "Verification"("shop", "tampered", "createdAt");
