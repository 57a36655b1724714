-- CreateIndex
CREATE INDEX "Commission_shop_creatorId_currency_status_redirected_amount_idx" ON "Commission"("shop", "creatorId", "currency", "status", "redirected", "amountMinor");
