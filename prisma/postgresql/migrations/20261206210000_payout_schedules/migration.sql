-- CreateTable
CREATE TABLE "PayoutSchedule" (
    "shop" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "cadence" TEXT NOT NULL DEFAULT 'monthly',
    "weekday" INTEGER NOT NULL DEFAULT 1,
    "monthDay" INTEGER NOT NULL DEFAULT 1,
    "currency" TEXT NOT NULL,
    "minimumMinor" BIGINT NOT NULL DEFAULT 0,
    "activeFrom" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutSchedule_pkey" PRIMARY KEY ("shop")
);

-- CreateTable
CREATE TABLE "PayoutSchedulePeriod" (
    "shop" TEXT NOT NULL,
    "periodKey" TEXT NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "state" TEXT NOT NULL,
    "runId" TEXT,
    "summary" TEXT NOT NULL DEFAULT '{}',
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutSchedulePeriod_pkey" PRIMARY KEY ("shop","periodKey")
);

-- CreateIndex
CREATE INDEX "PayoutSchedulePeriod_shop_dueAt_idx" ON "PayoutSchedulePeriod"("shop", "dueAt");
