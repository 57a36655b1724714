-- CreateTable
CREATE TABLE "OrderDiscountCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "verificationId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "type" TEXT,
    "currency" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OrderDiscountCode_verificationId_fkey" FOREIGN KEY ("verificationId") REFERENCES "Verification" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "CodeDeactivation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "discountId" TEXT NOT NULL,
    "userId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "OrderDiscountCode_verificationId_idx" ON "OrderDiscountCode"("verificationId");

-- CreateIndex
CREATE INDEX "OrderDiscountCode_shop_createdAt_idx" ON "OrderDiscountCode"("shop", "createdAt");

-- CreateIndex
CREATE INDEX "CodeDeactivation_shop_code_createdAt_idx" ON "CodeDeactivation"("shop", "code", "createdAt");
