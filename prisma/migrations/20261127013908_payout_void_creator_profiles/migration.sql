-- AlterTable
ALTER TABLE "Payout" ADD COLUMN "voidReason" TEXT;
ALTER TABLE "Payout" ADD COLUMN "voidedAt" DATETIME;
ALTER TABLE "Payout" ADD COLUMN "voidedBy" TEXT;

-- CreateTable
CREATE TABLE "CreatorProfile" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "creatorId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "email" TEXT NOT NULL DEFAULT '',
    "note" TEXT NOT NULL DEFAULT '',
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "CreatorProfile_shop_creatorId_key" ON "CreatorProfile"("shop", "creatorId");
