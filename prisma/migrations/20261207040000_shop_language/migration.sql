-- CreateTable
CREATE TABLE "ShopLanguage" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "adminLocale" TEXT NOT NULL,
    "seenAt" DATETIME NOT NULL
);
