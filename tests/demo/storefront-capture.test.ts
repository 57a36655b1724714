import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CART_ATTRIBUTES, type TouchRequest } from "../../app/attribution/cart-attributes";
import { authenticate } from "../../app/shopify.server";
import { browserUnavailable, chooseCapture, type StorefrontCapture } from "../../sandbox/demo/storefront-capture";
import { serveRoutes, type RouteServer } from "../support/route-server";

// The demo's storefront step with the real click-capture script in Chromium: the attributes it
// returns are read from the stand-in's cart, as Shopify would copy them into note_attributes.
// Without Chromium this fails (with the reason); it never quietly tests the synthetic fallback.

const { clickId: CLICK, arrivedTag: TAG, capturedAt: AT, tagHistory: TAGS } = CART_ATTRIBUTES;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const tags = (attributes: Record<string, string>) =>
  (JSON.parse(attributes[TAGS] ?? "[]") as [string, string][]).map(([tag]) => tag);

let step: StorefrontCapture | undefined;
const lines: string[] = [];

beforeAll(async () => {
  const reason = browserUnavailable();
  if (reason) throw new Error(`The demo's browser storefront step cannot run: ${reason}`);
  step = await chooseCapture((line) => lines.push(line));
});

afterAll(async () => {
  await step?.close();
});

describe("demo storefront step (real Chromium)", () => {
  it("says which capture it uses", () => {
    expect(lines).toEqual(["Storefront step: real Chromium with the click-capture extension"]);
  });

  it("matched: the creator's link lands the click and its tag", async () => {
    const attributes = await step!.capture({
      clickId: "clk_match",
      expectedTag: "alice-20",
      arrivedTag: "alice-20",
      tagParam: "tag",
    });
    expect(attributes[CLICK]).toBe("clk_match");
    expect(attributes[TAG]).toBe("alice-20");
    expect(attributes[AT]).toMatch(ISO);
    expect(tags(attributes)).toEqual(["alice-20"]);
    expect(Object.keys(attributes).sort()).toEqual([AT, CLICK, TAG, TAGS].sort());
  });

  it("hijacked: the swapped tag is the last touch and the history holds both", async () => {
    const attributes = await step!.capture({
      clickId: "clk_hijack",
      expectedTag: "bob-10",
      arrivedTag: "honey-77",
      tagParam: "aff",
    });
    expect(attributes[CLICK]).toBe("clk_hijack");
    expect(attributes[TAG]).toBe("honey-77");
    expect(tags(attributes)).toEqual(["bob-10", "honey-77"]);
  });

  it("stripped: the click id without any tag", async () => {
    const attributes = await step!.capture({
      clickId: "clk_strip",
      expectedTag: "carol-7",
      arrivedTag: null,
      tagParam: "tag",
    });
    expect(attributes[CLICK]).toBe("clk_strip");
    expect(attributes[AT]).toMatch(ISO);
    expect(attributes).not.toHaveProperty(TAG);
  });

  it("a click id never issued: only the arrival, no creator step", async () => {
    const attributes = await step!.capture({
      clickId: "clk_made_up",
      expectedTag: null,
      arrivedTag: "alice-20",
      tagParam: "tag",
    });
    expect(attributes[CLICK]).toBe("clk_made_up");
    expect(tags(attributes)).toEqual(["alice-20"]);
  });

  it("each order is a new shopper: nothing carries over from the previous one", async () => {
    const first = await step!.capture({ clickId: "clk_one", expectedTag: "a-1", arrivedTag: "a-1", tagParam: "tag" });
    const second = await step!.capture({ clickId: "clk_two", expectedTag: "b-2", arrivedTag: null, tagParam: "tag" });
    expect(tags(first)).toEqual(["a-1"]);
    expect(second[CLICK]).toBe("clk_two");
    expect(second).not.toHaveProperty(TAGS);
  });
});

describe("demo storefront step sending landings through the app proxy", () => {
  const SHOP = "demo-shop.myshopify.com";
  const received: { shop: string | null; touch: TouchRequest }[] = [];
  const logged: string[] = [];
  let app: RouteServer;
  let viaProxy: StorefrontCapture | undefined;

  beforeAll(async () => {
    // The app's side of the proxy: the library's app proxy authentication, then 202.
    app = await serveRoutes({
      "/proxy/touch": {
        action: async ({ request }) => {
          await authenticate.public.appProxy(request);
          received.push({
            shop: new URL(request.url).searchParams.get("shop"),
            touch: (await request.json()) as TouchRequest,
          });
          return new Response(null, { status: 202 });
        },
      },
    });
    viaProxy = await chooseCapture((line) => logged.push(line), {
      appProxy: { appUrl: app.url, apiSecret: process.env.SHOPIFY_API_SECRET!, shop: SHOP },
    });
  });

  afterAll(async () => {
    await viaProxy?.close();
    await app.close();
  });

  it("says where the landings go", () => {
    expect(logged).toEqual([
      `Storefront step: real Chromium with the click-capture extension; landings reach the app through the app proxy (${app.url})`,
    ]);
  });

  it("the app has every touch of a landing journey, signed for the shop, before the capture returns", async () => {
    const { attributes, cartToken } = await viaProxy!.captureShopper({
      clickId: "clk_hijack",
      expectedTag: "bob-10",
      arrivedTag: "honey-77",
      tagParam: "aff",
      landing: true,
    });
    expect(attributes[TAG]).toBe("honey-77");
    expect(cartToken).toMatch(/^\w+$/);
    expect(received).toEqual([
      { shop: SHOP, touch: { clickId: "clk_hijack", tag: "bob-10", cartToken } },
      { shop: SHOP, touch: { clickId: "clk_hijack", tag: "honey-77", cartToken } },
    ]);
  });

  it("a journey that is not a landing stays on the storefront: the app hears nothing", async () => {
    const before = received.length;
    const { cartToken } = await viaProxy!.captureShopper({
      clickId: "clk_quiet",
      expectedTag: "a-1",
      arrivedTag: "a-1",
      tagParam: "tag",
    });
    expect(cartToken).toMatch(/^\w+$/);
    expect(received).toHaveLength(before);
  });

  it("fails with the app's answer when the app refuses the touches", async () => {
    const refusing = await chooseCapture(() => {}, {
      appProxy: { appUrl: app.url, apiSecret: "not-the-app-secret", shop: SHOP },
    });
    try {
      await expect(
        refusing.capture({ clickId: "clk_x", expectedTag: "a-1", arrivedTag: "a-1", tagParam: "tag", landing: true }),
      ).rejects.toThrow(/answered the touches through the app proxy with 400/);
    } finally {
      await refusing.close();
    }
  });
});
