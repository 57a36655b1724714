-- CreateIndex
CREATE INDEX "Commission_shop_creatorId_currency_status_redirected_amountMinor_idx" ON "Commission"("shop", "creatorId", "currency", "status", "redirected", "amountMinor");
