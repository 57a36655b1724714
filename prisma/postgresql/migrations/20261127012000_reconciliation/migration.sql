-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'webhook';

-- CreateTable
CREATE TABLE "ShopReconciliation" (
    "shop" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL,
    "watermark" TIMESTAMP(3) NOT NULL,
    "foundOrders" INTEGER NOT NULL DEFAULT 0,
    "foundRefunds" INTEGER NOT NULL DEFAULT 0,
    "foundCancellations" INTEGER NOT NULL DEFAULT 0,
    "sweptAt" TIMESTAMP(3),
    "failedAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ShopReconciliation_pkey" PRIMARY KEY ("shop")
);
