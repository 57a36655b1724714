-- AlterTable
ALTER TABLE "Payout" ADD COLUMN "attemptedAt" DATETIME;
ALTER TABLE "Payout" ADD COLUMN "providerAccount" TEXT;
ALTER TABLE "Payout" ADD COLUMN "providerMark" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PayoutSettings" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "defaultMethod" TEXT NOT NULL DEFAULT 'manual',
    "paypalEnvironment" TEXT NOT NULL DEFAULT 'sandbox',
    "paypalCredentials" TEXT,
    "paypalOrigin" TEXT,
    "paypalClientIdLast4" TEXT NOT NULL DEFAULT '',
    "paypalSecretLast4" TEXT NOT NULL DEFAULT '',
    "paypalWebhookId" TEXT NOT NULL DEFAULT '',
    "updatedAt" DATETIME NOT NULL,
    "createCustomers" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_PayoutSettings" ("defaultMethod", "paypalClientIdLast4", "paypalCredentials", "paypalEnvironment", "paypalOrigin", "paypalSecretLast4", "paypalWebhookId", "shop", "updatedAt") SELECT "defaultMethod", "paypalClientIdLast4", "paypalCredentials", "paypalEnvironment", "paypalOrigin", "paypalSecretLast4", "paypalWebhookId", "shop", "updatedAt" FROM "PayoutSettings";
DROP TABLE "PayoutSettings";
ALTER TABLE "new_PayoutSettings" RENAME TO "PayoutSettings";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
