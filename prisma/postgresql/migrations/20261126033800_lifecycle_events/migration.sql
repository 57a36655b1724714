-- CreateTable
CREATE TABLE "LifecycleEvent" (
    "id" TEXT NOT NULL,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "bodyDigest" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3),
    "receivedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LifecycleEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "LifecycleEvent_shop_topic_eventId_idx" ON "LifecycleEvent"("shop", "topic", "eventId");

-- CreateIndex
CREATE INDEX "LifecycleEvent_receivedAt_idx" ON "LifecycleEvent"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "LifecycleEvent_shop_topic_bodyDigest_key" ON "LifecycleEvent"("shop", "topic", "bodyDigest");
