-- AlterTable
ALTER TABLE "Payout" ADD COLUMN     "attemptedAt" TIMESTAMP(3),
ADD COLUMN     "providerAccount" TEXT,
ADD COLUMN     "providerMark" TEXT;

-- AlterTable
ALTER TABLE "PayoutSettings" ADD COLUMN     "createCustomers" BOOLEAN NOT NULL DEFAULT false;
