import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AdminGraphql } from "../../app/shopify-admin/admin-client.server";
import { connectWebPixel, pixelSettings } from "../../app/shopify-admin/web-pixel.server";
import { WEB_PIXEL_SETTINGS_DEFINITION } from "../../sandbox/shopify/store";
import { startHarness, type Harness } from "./support";

// webPixelCreate / webPixelUpdate through the library's real admin client, against the
// stand-in, which validates every document on the app's Admin schema and the settings against the
// extension's definition, as Shopify does.

const PIXEL_SCOPES = "read_orders,write_orders,write_pixels,read_customer_events";
let h: Harness;
let shopNumber = 0;
const retry = { sleep: async () => {} };

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());
afterEach(() => expect(h.standin.validationFailures()).toEqual([]));

async function shopWith(scope = PIXEL_SCOPES): Promise<{ shop: string; graphql: AdminGraphql }> {
  shopNumber += 1;
  const shop = `pixel-connect-${shopNumber}.myshopify.com`;
  await h.installShop(shop, scope);
  const { admin } = await h.app.unauthenticated.admin(shop);
  return { shop, graphql: admin.graphql };
}

describe("connectWebPixel", () => {
  it("creates the pixel on a fresh shop, then finds it connected; changed tag parameters update it", async () => {
    const { shop, graphql } = await shopWith();
    expect(await connectWebPixel(graphql, ["tag"], retry)).toEqual({ connected: true, change: "created" });
    expect(h.standin.store.shop(shop).webPixel?.settings).toEqual({ tagParams: '["tag"]' });
    expect(await connectWebPixel(graphql, ["tag"], retry)).toEqual({ connected: true, change: "none" });
    expect(await connectWebPixel(graphql, ["ref", "tag"], retry)).toEqual({ connected: true, change: "updated" });
    expect(h.standin.store.shop(shop).webPixel?.settings).toEqual({ tagParams: '["ref","tag"]' });
  });

  it("re-connects a pixel the merchant removed", async () => {
    const { shop, graphql } = await shopWith();
    await connectWebPixel(graphql, ["tag"], retry);
    h.standin.store.webPixelDelete(h.standin.store.shop(shop));
    expect(await connectWebPixel(graphql, ["tag"], retry)).toEqual({ connected: true, change: "created" });
  });

  it("without the pixel scopes: not connected, with Shopify's reason", async () => {
    const { graphql } = await shopWith("read_orders,write_orders");
    const result = await connectWebPixel(graphql, ["tag"], retry);
    expect(result.connected).toBe(false);
    expect(result).toMatchObject({ message: expect.stringMatching(/access/i) });
  });

  it("settings the extension does not define are refused by the stand-in as by Shopify", async () => {
    const { shop } = await shopWith();
    const state = h.standin.store.shop(shop);
    expect(h.standin.store.webPixelSave(state, null, '{"tagParams":"[\\"tag\\"]","extra":"x"}').userErrors).toEqual([
      expect.objectContaining({ code: "INVALID_SETTINGS" }),
    ]);
    expect(h.standin.store.webPixelSave(state, null, "{}").userErrors[0]?.code).toBe("INVALID_SETTINGS");
    expect(h.standin.store.webPixelSave(state, null, pixelSettings(["tag"])).userErrors).toEqual([]);
    expect(h.standin.store.webPixelSave(state, null, pixelSettings(["tag"])).userErrors[0]?.code).toBe("TAKEN");
  });

  it("the stand-in's settings definition is the extension's (shopify.extension.toml)", () => {
    const toml = readFileSync(
      path.resolve(import.meta.dirname, "../../extensions/tag-guard-pixel/shopify.extension.toml"),
      "utf8",
    );
    const fields = [...toml.matchAll(/^\[settings\.fields\.(\w+)\]\n(?:[^[]*?)type = "(\w+)"/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(fields).toEqual(Object.entries(WEB_PIXEL_SETTINGS_DEFINITION).map(([name, d]) => [name, d.type]));
    for (const d of Object.values(WEB_PIXEL_SETTINGS_DEFINITION)) {
      expect(toml).toContain(`{ name = "min", value = "${d.min}" }`);
      expect(toml).toContain(`{ name = "max", value = "${d.max}" }`);
    }
    expect(toml).toMatch(/^type = "web_pixel_extension"$/m);
    expect(toml).toMatch(/^\[customer_privacy\]\nanalytics = false\nmarketing = true/m);
  });
});
