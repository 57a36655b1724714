-- DropIndex
DROP INDEX "VerificationHour_shop_hour_idx";

-- DropIndex
DROP INDEX "OrderDiscountCode_shop_createdAt_idx";

-- CreateIndex
CREATE INDEX "VerificationHour_period_idx" ON "VerificationHour"("shop", "hour", "outcome", "source", "q0", "q1", "q2", "q3");

-- CreateIndex
CREATE INDEX "OrderDiscountCode_period_idx" ON "OrderDiscountCode"("shop", "createdAt", "clicked", "hijacked", "code", "currency", "amountMinor", "redirectedMinor", "orderCreatedAt");
