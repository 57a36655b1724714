import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { seal, unseal, SealError } from "../../app/platform/sealing.server";
import { getPublicSettings, getServerSettings, saveSettings } from "../../app/settings/shop-settings.server";

const prisma = databaseClient();

const shop = "settings-shop.myshopify.com";
const key = "ck_live_9f8e7d6c5b4a3210";

describe("settings", () => {
  it("seals the key at rest: the database holds no trace of it, the server can open it", async () => {
    const saved = await saveSettings(shop, {
      clickServiceUrl: "https://clicks.example.com/",
      apiKey: key,
      tagParams: ["tag", "aff", "tag"],
    });
    expect(saved).toMatchObject({
      ok: true,
      settings: { apiKeyLast4: "3210", clickServiceUrl: "https://clicks.example.com", tagParams: ["tag", "aff"] },
    });
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    expect(JSON.stringify(row)).not.toContain(key);
    expect(JSON.stringify(await getPublicSettings(shop))).not.toContain(key);
    expect((await getServerSettings(shop))?.apiKey).toBe(key);
  });

  it("keeps the stored key when the form leaves it blank", async () => {
    const saved = await saveSettings(shop, {
      clickServiceUrl: "https://clicks.example.com",
      apiKey: "",
      hijackTag: "stolen-tag",
    });
    expect(saved.ok).toBe(true);
    expect((await getServerSettings(shop))?.apiKey).toBe(key);
  });

  it("names each invalid field and saves nothing", async () => {
    const before = await prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    const saved = await saveSettings(shop, {
      clickServiceUrl: "ftp://nope",
      tagParams: [],
      commissionRate: "150",
      hijackTag: "a,b",
    });
    expect(saved.ok).toBe(false);
    if (saved.ok) return;
    expect(Object.keys(saved.errors).sort()).toEqual(["clickServiceUrl", "commissionRate", "hijackTag", "tagParams"]);
    expect(await prisma.shopSettings.findUniqueOrThrow({ where: { shop } })).toEqual(before);
  });

  it("answers garbage in any field with field errors, never an exception", async () => {
    for (const input of [
      { clickServiceUrl: "not a url", commissionRate: "" },
      { clickServiceUrl: "", commissionRate: "abc" },
      null,
      "x",
      { tagParams: "tag" },
    ]) {
      const saved = await saveSettings(shop, input);
      expect(saved.ok).toBe(false);
    }
  });

  it("refuses a service URL that carries a user name or password, or is over 2,048 characters", async () => {
    const base = { apiKey: key, tagParams: ["tag"] };
    for (const clickServiceUrl of [
      "https://user:secret@clicks.example.com",
      "https://user@clicks.example.com",
      `https://clicks.example.com/${"a".repeat(2_049 - "https://clicks.example.com/".length)}`,
    ]) {
      const saved = await saveSettings("url-shop.myshopify.com", { ...base, clickServiceUrl });
      expect(saved, clickServiceUrl.slice(0, 40)).toMatchObject({
        ok: false,
        errors: { clickServiceUrl: expect.any(String) },
      });
    }
    const longest = `https://clicks.example.com/${"a".repeat(2_048 - "https://clicks.example.com/".length)}`;
    expect((await saveSettings("url-shop.myshopify.com", { ...base, clickServiceUrl: longest })).ok).toBe(true);
  });

  it("requires a key the first time", async () => {
    const saved = await saveSettings("new-shop.myshopify.com", { clickServiceUrl: "https://clicks.example.com" });
    expect(saved).toMatchObject({ ok: false, errors: { apiKey: expect.any(String) } });
  });
});

describe("the key's service origin", () => {
  const bound = "bound-shop.myshopify.com";

  it("opens the key only for the origin it was saved for, even if the row is edited to point elsewhere", async () => {
    await saveSettings(bound, { clickServiceUrl: "https://clicks.example.com/api", apiKey: key });
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: bound } });
    expect(row.apiKeyOrigin).toBe("https://clicks.example.com");

    await prisma.shopSettings.update({ where: { shop: bound }, data: { clickServiceUrl: "https://evil.example" } });
    await expect(getServerSettings(bound)).rejects.toThrow(SealError);
    // Moving the recorded origin along does not help: the origin is sealed into the key itself.
    await prisma.shopSettings.update({ where: { shop: bound }, data: { apiKeyOrigin: "https://evil.example" } });
    await expect(getServerSettings(bound)).rejects.toThrow(SealError);

    await prisma.shopSettings.update({
      where: { shop: bound },
      data: { clickServiceUrl: row.clickServiceUrl, apiKeyOrigin: row.apiKeyOrigin },
    });
    expect((await getServerSettings(bound))?.apiKey).toBe(key);
  });

  it("binds a key sealed before keys had an origin to the stored URL's origin on first use", async () => {
    const legacy = "legacy-shop.myshopify.com";
    await prisma.shopSettings.create({
      data: {
        shop: legacy,
        clickServiceUrl: "https://Clicks.Example.com:443/v1",
        apiKeySealed: seal(key, legacy),
        apiKeyLast4: key.slice(-4),
      },
    });
    expect((await getServerSettings(legacy))?.apiKey).toBe(key);
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: legacy } });
    expect(row.apiKeyOrigin).toBe("https://clicks.example.com");
    expect(() => unseal(row.apiKeySealed, legacy)).toThrow(SealError);
    expect((await getServerSettings(legacy))?.apiKey).toBe(key);
    const moved = await saveSettings(legacy, { clickServiceUrl: "https://other.example.com" });
    expect(moved).toMatchObject({ ok: false, errors: { apiKey: expect.stringMatching(/again/) } });
  });
});

describe("sealing", () => {
  it("binds the sealed value to its shop and detects tampering", () => {
    const sealed = seal("secret-value", "a.myshopify.com");
    expect(unseal(sealed, "a.myshopify.com")).toEqual({ plaintext: "secret-value", stale: false });
    expect(() => unseal(sealed, "b.myshopify.com")).toThrow(SealError);
    const parts = sealed.split(".");
    parts[4] = Buffer.from("tampered").toString("base64url");
    expect(() => unseal(parts.join("."), "a.myshopify.com")).toThrow(SealError);
  });
});
