-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_LandingTouch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shop" TEXT NOT NULL,
    "cartToken" TEXT,
    "clickId" TEXT NOT NULL,
    "tag" TEXT,
    "seenAt" DATETIME NOT NULL,
    "source" TEXT
);
INSERT INTO "new_LandingTouch" ("cartToken", "clickId", "id", "seenAt", "shop", "source", "tag") SELECT "cartToken", "clickId", "id", "seenAt", "shop", "source", "tag" FROM "LandingTouch";
DROP TABLE "LandingTouch";
ALTER TABLE "new_LandingTouch" RENAME TO "LandingTouch";
CREATE INDEX "LandingTouch_shop_cartToken_seenAt_idx" ON "LandingTouch"("shop", "cartToken", "seenAt");
CREATE INDEX "LandingTouch_shop_seenAt_idx" ON "LandingTouch"("shop", "seenAt");
CREATE INDEX "LandingTouch_shop_source_seenAt_idx" ON "LandingTouch"("shop", "source", "seenAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
