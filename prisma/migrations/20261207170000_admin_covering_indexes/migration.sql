-- DropIndex
DROP INDEX "OrderDiscountCode_shop_createdAt_idx";

-- DropIndex
DROP INDEX "VerificationHour_shop_hour_idx";

-- CreateIndex
CREATE INDEX "OrderDiscountCode_period_idx" ON "OrderDiscountCode"("shop", "createdAt", "clicked", "hijacked", "code", "currency", "amountMinor", "redirectedMinor", "orderCreatedAt");

-- CreateIndex
CREATE INDEX "VerificationHour_period_idx" ON "VerificationHour"("shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3");
