-- CreateTable
CREATE TABLE "PayoutSchedule" (
    "shop" TEXT NOT NULL PRIMARY KEY,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "cadence" TEXT NOT NULL DEFAULT 'monthly',
    "weekday" INTEGER NOT NULL DEFAULT 1,
    "monthDay" INTEGER NOT NULL DEFAULT 1,
    "currency" TEXT NOT NULL,
    "minimumMinor" BIGINT NOT NULL DEFAULT 0,
    "activeFrom" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PayoutSchedulePeriod" (
    "shop" TEXT NOT NULL,
    "periodKey" TEXT NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "state" TEXT NOT NULL,
    "runId" TEXT,
    "summary" TEXT NOT NULL DEFAULT '{}',
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shop", "periodKey")
);

-- CreateIndex
CREATE INDEX "PayoutSchedulePeriod_shop_dueAt_idx" ON "PayoutSchedulePeriod"("shop", "dueAt");
