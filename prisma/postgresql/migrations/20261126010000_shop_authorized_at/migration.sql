-- AlterTable
ALTER TABLE "ShopSettings" ADD COLUMN     "authorizedAt" TIMESTAMP(3);
