-- CreateTable
CREATE TABLE "ShopProfile" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "ianaTimezone" TEXT NOT NULL,
    "currencyCode" TEXT NOT NULL,
    "readAt" DATETIME NOT NULL
);
