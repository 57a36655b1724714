-- CreateTable
CREATE TABLE "ShopReconciliation" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "since" DATETIME NOT NULL,
    "watermark" DATETIME NOT NULL,
    "foundOrders" INTEGER NOT NULL DEFAULT 0,
    "foundRefunds" INTEGER NOT NULL DEFAULT 0,
    "foundCancellations" INTEGER NOT NULL DEFAULT 0,
    "sweptAt" DATETIME,
    "failedAt" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- AlterTable: SQLite adds a column with a constant default in place, without copying the table.
ALTER TABLE "WebhookDelivery" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'webhook';
