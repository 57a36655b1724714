-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN "authorizedAt" DATETIME;
