-- DropIndex
DROP INDEX "Commission_shop_createdAt_idx";

-- DropIndex
DROP INDEX "Commission_shop_status_createdAt_idx";

-- DropIndex
DROP INDEX "Commission_shop_redirected_createdAt_idx";

-- CreateIndex
CREATE INDEX "Commission_shop_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "createdAt", "currency", "amountMinor");

-- CreateIndex
CREATE INDEX "Commission_shop_status_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "status", "createdAt", "currency", "amountMinor");

-- CreateIndex
CREATE INDEX "Commission_shop_redirected_createdAt_currency_amountMinor_idx" ON "Commission"("shop", "redirected", "createdAt", "currency", "amountMinor");

