-- DropIndex
DROP INDEX "Verification_shop_outcome_createdAt_idx";

-- CreateIndex
CREATE INDEX "Verification_shop_outcome_createdAt_arrivedTag_idx" ON "Verification"("shop", "outcome", "createdAt", "arrivedTag");

