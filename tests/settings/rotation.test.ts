// Rotating SETTINGS_ENCRYPTION_KEY, for the click-service API key and for Shopify's tokens. The
// environment is read once per process, so each step loads the app's modules afresh under the
// keys it names, as a restart would.
import { Session } from "@shopify/shopify-api";
import { afterAll, describe, expect, it } from "vitest";
import { keyId, restartUnderKeys } from "../support/sealing-keys";

const original = { ...process.env };
const KEY_A = process.env.SETTINGS_ENCRYPTION_KEY!;
const KEY_B = Buffer.alloc(32, 11).toString("base64");
const KEY_C = Buffer.alloc(32, 12).toString("base64");
const shop = "rotation-shop.myshopify.com";
const apiKey = "ck_live_rotate_me_0042";

async function restartWith(current: string, previous?: string) {
  restartUnderKeys(current, previous);
  return {
    settings: await import("../../app/settings/shop-settings.server"),
    connection: await import("../../app/settings/test-connection.server"),
    sessions: new (await import("../../app/sessions/sealed-session-storage.server")).SealedSessionStorage(
      (await import("../../app/database/sql.server")).sql,
    ),
    prisma: (await import("../../app/database/db.server")).databaseClient(),
  };
}

afterAll(() => {
  process.env = original;
});

describe("the click-service API key across a sealing-key rotation", () => {
  it("opens under the previous key, is re-sealed under the new one, and then needs only the new one", async () => {
    const before = await restartWith(KEY_A);
    expect(
      (await before.settings.saveSettings(shop, { clickServiceUrl: "https://clicks.example.com", apiKey })).ok,
    ).toBe(true);
    const sealedUnderA = (await before.prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).apiKeySealed;
    expect(sealedUnderA.split(".")[1]).toBe(keyId(KEY_A));

    const rotating = await restartWith(KEY_B, KEY_A);
    expect((await rotating.settings.getServerSettings(shop))?.apiKey).toBe(apiKey);
    const resealed = (await rotating.prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).apiKeySealed;
    expect(resealed.split(".")[1]).toBe(keyId(KEY_B));
    expect(resealed).not.toContain(apiKey);

    const after = await restartWith(KEY_B);
    expect((await after.settings.getServerSettings(shop))?.apiKey).toBe(apiKey);
  });

  it("fails with a clear state under a key that is neither, until the merchant enters the key again", async () => {
    const lost = await restartWith(KEY_C);
    await expect(lost.settings.getServerSettings(shop)).rejects.toMatchObject({
      name: "SealError",
      message: "sealed under a key that is no longer configured",
    });
    expect(await lost.connection.testConnection(shop, { clickServiceUrl: "", apiKey: "" })).toEqual({
      status: "incomplete",
      field: "apiKey",
      reason: "unreadable",
    });
    // The page still loads what it shows without the key.
    expect(await lost.settings.getPublicSettings(shop)).toMatchObject({ apiKeyLast4: apiKey.slice(-4) });

    const saved = await lost.settings.saveSettings(shop, { clickServiceUrl: "https://clicks.example.com", apiKey });
    expect(saved.ok).toBe(true);
    expect((await lost.settings.getServerSettings(shop))?.apiKey).toBe(apiKey);
  });
});

describe("Shopify's tokens across a sealing-key rotation", () => {
  const id = "offline_rotation-session.myshopify.com";
  const accessToken = "shpat_rotation_token_0042";
  const refreshToken = "shprt_rotation_refresh_0042";

  it("open under the previous key, are re-sealed under the new one, and then need only the new one", async () => {
    const before = await restartWith(KEY_A);
    await before.sessions.storeSession(
      new Session({
        id,
        shop: "rotation-session.myshopify.com",
        state: "",
        isOnline: false,
        accessToken,
        refreshToken,
      }),
    );
    const underA = await before.prisma.session.findUniqueOrThrow({ where: { id } });
    expect([underA.accessToken, underA.refreshToken].map((value) => value?.split(".")[1])).toEqual([
      keyId(KEY_A),
      keyId(KEY_A),
    ]);

    const rotating = await restartWith(KEY_B, KEY_A);
    expect(await rotating.sessions.loadSession(id)).toMatchObject({ accessToken, refreshToken });
    const underB = await rotating.prisma.session.findUniqueOrThrow({ where: { id } });
    expect([underB.accessToken, underB.refreshToken].map((value) => value?.split(".")[1])).toEqual([
      keyId(KEY_B),
      keyId(KEY_B),
    ]);

    const after = await restartWith(KEY_B);
    expect(await after.sessions.loadSession(id)).toMatchObject({ accessToken, refreshToken });
  });

  it("count as absent under a key that is neither, so the library asks Shopify for a new token", async () => {
    const lost = await restartWith(KEY_C);
    expect(await lost.sessions.loadSession(id)).toBeUndefined();
    expect(await lost.sessions.findSessionsByShop("rotation-session.myshopify.com")).toEqual([]);
  });
});
