-- CreateTable
CREATE TABLE "ShopLanguage" (
    "shop" TEXT NOT NULL,
    "adminLocale" TEXT NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ShopLanguage_pkey" PRIMARY KEY ("shop")
);
