-- AlterTable
ALTER TABLE "Verification" ADD COLUMN "hijacked" BOOLEAN;

