-- CreateIndex
CREATE INDEX "PayoutLine_creatorId_idx" ON "PayoutLine"("creatorId");
