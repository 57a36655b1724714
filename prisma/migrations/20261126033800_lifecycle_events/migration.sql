-- CreateTable
CREATE TABLE "LifecycleEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "bodyDigest" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "occurredAt" DATETIME,
    "receivedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "LifecycleEvent_shop_topic_eventId_idx" ON "LifecycleEvent"("shop", "topic", "eventId");

-- CreateIndex
CREATE INDEX "LifecycleEvent_receivedAt_idx" ON "LifecycleEvent"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "LifecycleEvent_shop_topic_bodyDigest_key" ON "LifecycleEvent"("shop", "topic", "bodyDigest");
