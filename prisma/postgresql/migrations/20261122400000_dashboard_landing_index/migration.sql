-- DropIndex
DROP INDEX "Verification_shop_createdAt_idx";

-- CreateIndex
CREATE INDEX "Verification_shop_createdAt_verdictSource_tampered_idx" ON "Verification"("shop", "createdAt", "verdictSource", "tampered");
