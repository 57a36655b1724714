-- AlterTable
ALTER TABLE "Payout" ADD COLUMN "checkedBy" TEXT;
