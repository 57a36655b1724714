-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "orderValueBasis" TEXT;
