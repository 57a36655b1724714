-- AlterTable
ALTER TABLE "DataRequest" ADD COLUMN "eventId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "DataRequest_shop_eventId_key" ON "DataRequest"("shop", "eventId");
