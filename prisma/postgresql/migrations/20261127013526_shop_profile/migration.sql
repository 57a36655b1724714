-- CreateTable
CREATE TABLE "ShopProfile" (
    "shop" TEXT NOT NULL,
    "ianaTimezone" TEXT NOT NULL,
    "currencyCode" TEXT NOT NULL,
    "readAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ShopProfile_pkey" PRIMARY KEY ("shop")
);
