-- AlterTable
ALTER TABLE "LandingTouch" ALTER COLUMN "cartToken" DROP NOT NULL;
