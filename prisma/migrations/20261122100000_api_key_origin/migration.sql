-- The click-service API key is bound to the origin it was saved for (see ShopSettings).
-- Existing rows keep NULL: their keys were sealed bound to the shop alone, and the app binds
-- each to its stored service URL's origin, re-sealing it, the first time it is used.
ALTER TABLE "ShopSettings" ADD COLUMN "apiKeyOrigin" TEXT;
