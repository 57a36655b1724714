import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PRODUCT_VARIANT } from "../../sandbox/storefront/products";
import { Storefront } from "../../sandbox/storefront/server";

// The stand-in shop's cart over HTTP, as a theme's script or a browser extension calls it:
// Shopify's Ajax Cart API (cart.js, add.js, change.js, update.js, clear.js) and the theme's form
// posts, through the real stand-in server, with the cart cookie kept as a browser keeps it.
// What a browser does with the same endpoints through the theme's pages: tests/e2e/cart.test.ts.

const store = new Storefront();
const VARIANT = PRODUCT_VARIANT.id;
const PRICE = PRODUCT_VARIANT.price;
const KEY = /^\d+:[0-9a-f]{32}$/;

beforeAll(() => store.start());
afterAll(() => store.stop());
beforeEach(() => store.reset());

interface Answer {
  status: number;
  body: any;
  location: string | null;
}

/** One shopper's browser: its cart cookie, sent with every request and replaced as the shop says. */
class Shopper {
  private cookie: string | null = null;

  async send(path: string, init: RequestInit = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set("cookie", this.cookie);
    const response = await fetch(store.url(path), { ...init, headers, redirect: "manual" });
    const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith("cart="));
    if (set) this.cookie = set.split(";")[0]!;
    const text = await response.text();
    const json = (response.headers.get("content-type") ?? "").includes("json");
    return {
      status: response.status,
      body: json ? JSON.parse(text) : text,
      location: response.headers.get("location"),
    };
  }

  post(path: string, body: unknown): Promise<Answer> {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  form(path: string, fields: string): Promise<Answer> {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields,
    });
  }

  async cart(): Promise<any> {
    const { status, body } = await this.send("/cart.js");
    expect(status).toBe(200);
    return body;
  }

  /** The cart's lines as [quantity, properties], top first. */
  async lines(): Promise<[number, Record<string, string>][]> {
    return (await this.cart()).items.map((item: any) => [item.quantity, item.properties]);
  }
}

describe("GET cart.js", () => {
  it("makes a cart on the first request and answers it as Shopify documents an empty cart", async () => {
    const shopper = new Shopper();
    const cart = await shopper.cart();
    expect(cart).toEqual({
      token: expect.stringMatching(/^\w+\?key=\w+$/),
      note: null,
      attributes: {},
      original_total_price: 0,
      total_price: 0,
      total_discount: 0,
      total_weight: 0,
      item_count: 0,
      items: [],
      requires_shipping: false,
      currency: "USD",
      items_subtotal_price: 0,
      cart_level_discount_applications: [],
    });
    expect((await shopper.cart()).token).toBe(cart.token);
    expect(store.carts.size).toBe(1);
  });
});

describe("POST cart/add.js", () => {
  it("answers the added lines under `items` when `items` was posted, the line alone for `id`", async () => {
    const shopper = new Shopper();
    const many = await shopper.post("/cart/add.js", { items: [{ id: VARIANT, quantity: 2 }] });
    expect(many.status).toBe(200);
    expect(many.body.items).toHaveLength(1);
    expect(many.body.items[0]).toMatchObject({
      id: VARIANT,
      variant_id: VARIANT,
      product_id: PRODUCT_VARIANT.productId,
      key: expect.stringMatching(KEY),
      title: "Merino wool beanie",
      quantity: 2,
      price: PRICE,
      line_price: 2 * PRICE,
      final_price: PRICE,
      final_line_price: 2 * PRICE,
      properties: {},
      handle: "merino-beanie",
    });
    // The same variant again joins its line: the answer carries the line's new quantity.
    const one = await shopper.post("/cart/add.js", { id: String(VARIANT), quantity: 1 });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: VARIANT, key: many.body.items[0].key, quantity: 3, line_price: 3 * PRICE });
    const cart = await shopper.cart();
    expect(cart).toMatchObject({ item_count: 3, total_price: 3 * PRICE, items_subtotal_price: 3 * PRICE });
    expect(cart.total_weight).toBe(3 * PRODUCT_VARIANT.grams);
  });

  it("reads a form as a theme posts it, URL-encoded or multipart, and a quantity left out is one", async () => {
    const shopper = new Shopper();
    const encoded = await shopper.form(
      "/cart/add.js",
      `items[0][id]=${VARIANT}&items[0][quantity]=2&items[1][id]=${VARIANT}&items[1][properties][Engraving]=Ada`,
    );
    expect(encoded.status).toBe(200);
    expect(encoded.body.items.map((item: any) => [item.quantity, item.properties])).toEqual([
      [2, {}],
      [1, { Engraving: "Ada" }],
    ]);
    const form = new FormData();
    form.append("id", String(VARIANT));
    form.append("quantity", "4");
    const multipart = await shopper.send("/cart/add.js", { method: "POST", body: form });
    expect(multipart.status).toBe(200);
    expect(multipart.body).toMatchObject({ quantity: 6, properties: {} });
  });

  it("keeps a line per set of properties, the newest at the top, each with a key of its own", async () => {
    const shopper = new Shopper();
    await shopper.post("/cart/add.js", { id: VARIANT });
    await shopper.post("/cart/add.js", { id: VARIANT, properties: { Colour: "grey", Empty: "" } });
    await shopper.post("/cart/add.js", { items: [{ id: VARIANT, properties: { Colour: "grey" } }] });
    expect(await shopper.lines()).toEqual([
      [2, { Colour: "grey" }],
      [1, {}],
    ]);
    const keys = (await shopper.cart()).items.map((item: any) => item.key);
    expect(new Set(keys).size).toBe(2);
  });
});

describe("POST cart/change.js", () => {
  async function twoLines() {
    const shopper = new Shopper();
    await shopper.post("/cart/add.js", { items: [{ id: VARIANT, quantity: 2 }] });
    await shopper.post("/cart/add.js", { items: [{ id: VARIANT, properties: { Gift: "yes" } }] });
    return shopper;
  }

  it("changes one line, by 1-based line, by key or by variant id (its first line), and answers the cart", async () => {
    const shopper = await twoLines();
    const byLine = await shopper.post("/cart/change.js", { line: 2, quantity: 5 });
    expect(byLine.status).toBe(200);
    expect(byLine.body.items.map((item: any) => item.quantity)).toEqual([1, 5]);
    expect(byLine.body.total_price).toBe(6 * PRICE);

    const key = byLine.body.items[1].key;
    expect((await shopper.post("/cart/change.js", { id: key, quantity: 3 })).body.item_count).toBe(4);
    expect((await shopper.post("/cart/change.js", { id: VARIANT, quantity: 7 })).body.item_count).toBe(10);
    expect(await shopper.lines()).toEqual([
      [7, { Gift: "yes" }],
      [3, {}],
    ]);
  });

  it("removes a line at quantity 0, and overwrites its properties", async () => {
    const shopper = await twoLines();
    const props = await shopper.post("/cart/change.js", { line: 1, properties: { Gift: "no", Note: "hi" } });
    expect(props.body.items[0].properties).toEqual({ Gift: "no", Note: "hi" });
    const removed = await shopper.form("/cart/change.js", "line=1&quantity=0");
    expect(removed.status).toBe(200);
    expect(await shopper.lines()).toEqual([[2, {}]]);
  });
});

describe("POST cart/update.js and cart/clear.js", () => {
  it("update.js sets quantities by variant id or key, adds a variant not in the cart, merges attributes and sets the note", async () => {
    const shopper = new Shopper();
    await shopper.post("/cart/update.js", { attributes: { _lb_click: "clk_1", "Gift wrap": "Yes" } });
    const added = await shopper.post("/cart/update.js", { updates: { [VARIANT]: 2 }, note: "Ring twice" });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ item_count: 2, note: "Ring twice" });
    const key = added.body.items[0].key;
    const merged = await shopper.form(
      "/cart/update.js",
      `updates[${key}]=3&attributes[Gift wrap]=&attributes[_lb_tag]=a-20`,
    );
    expect(merged.body).toMatchObject({ item_count: 3, attributes: { _lb_click: "clk_1", _lb_tag: "a-20" } });
    expect(merged.body.attributes).not.toHaveProperty("Gift wrap");
    expect((await shopper.post("/cart/update.js", { updates: [0] })).body.items).toEqual([]);
  });

  it("keeps any attribute name as a name, __proto__ too, whether posted as JSON or as a form", async () => {
    const shopper = new Shopper();
    await shopper.send("/cart/update.js", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"attributes":{"__proto__":"json"}}',
    });
    const form = await shopper.form("/cart/update.js", "attributes[__proto__]=form&attributes[constructor]=c");
    expect(form.status).toBe(200);
    expect(Object.entries(form.body.attributes)).toEqual([
      ["__proto__", "form"],
      ["constructor", "c"],
    ]);
  });

  it("clear.js empties the lines and keeps the cart's token, attributes and note, as Shopify does", async () => {
    const shopper = new Shopper();
    await shopper.post("/cart/add.js", { id: VARIANT, quantity: 2 });
    const before = (await shopper.post("/cart/update.js", { attributes: { _lb_click: "clk_1" }, note: "n" })).body;
    const cleared = await shopper.send("/cart/clear.js", { method: "POST" });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ token: before.token, attributes: { _lb_click: "clk_1" }, note: "n" });
    expect(cleared.body).toMatchObject({ items: [], item_count: 0, total_price: 0 });
  });
});

describe("what Shopify refuses, answered as Shopify answers it, the cart left as it was", () => {
  const cases: [string, string, unknown, number, object][] = [
    [
      "an unknown variant (add.js)",
      "/cart/add.js",
      { id: 123 },
      422,
      { status: 422, message: "Cart Error", description: "Cannot find variant" },
    ],
    [
      "an unknown variant among good ones",
      "/cart/add.js",
      { items: [{ id: VARIANT }, { id: 9 }] },
      422,
      { description: "Cannot find variant" },
    ],
    [
      "a quantity below one (add.js)",
      "/cart/add.js",
      { id: VARIANT, quantity: 0 },
      422,
      { status: 422, message: "Cart Error" },
    ],
    [
      "a quantity that is not a number",
      "/cart/add.js",
      { id: VARIANT, quantity: "two" },
      400,
      { status: "bad_request", description: "expected String to be a Integer: quantity" },
    ],
    ["no id", "/cart/add.js", { quantity: 1 }, 400, { status: "bad_request", message: "Parameter Missing or Invalid" }],
    [
      "an empty items list",
      "/cart/add.js",
      { items: [] },
      400,
      { description: "Required parameter missing or invalid: items" },
    ],
    [
      "a line past the cart's end",
      "/cart/change.js",
      { line: 3, quantity: 1 },
      400,
      { status: "bad_request", message: "no valid id or line parameter" },
    ],
    [
      "a malformed line",
      "/cart/change.js",
      { line: "first", quantity: 1 },
      422,
      { status: "unprocessable_entity", message: "line parameter is invalid." },
    ],
    [
      "a key no line has",
      "/cart/change.js",
      { id: `${VARIANT}:00000000000000000000000000000000`, quantity: 1 },
      400,
      { message: "no valid id or line parameter" },
    ],
    ["a negative quantity (change.js)", "/cart/change.js", { line: 1, quantity: -1 }, 422, { message: "Cart Error" }],
    [
      "an unknown variant (update.js)",
      "/cart/update.js",
      { updates: { "77": 1 }, note: "lost" },
      404,
      { status: 404, message: "Cart Error", description: "Cannot find variant" },
    ],
    [
      "updates for more lines than the cart has",
      "/cart/update.js",
      { updates: [1, 1] },
      400,
      { status: "bad_request" },
    ],
    [
      "a line past Shopify's 500",
      "/cart/add.js",
      { items: Array.from({ length: 500 }, (_, n) => ({ id: VARIANT, properties: { n } })) },
      422,
      { message: "Cart Error", description: "You can't add more than 500 lines to the cart." },
    ],
    [
      "a quantity past the stand-in's bound",
      "/cart/add.js",
      { id: VARIANT, quantity: 10_000_000 },
      422,
      { description: "You can't add more Merino wool beanie to the cart." },
    ],
  ];

  it.each(cases)("%s", async (_label, path, body, status, answer) => {
    const shopper = new Shopper();
    await shopper.post("/cart/add.js", { id: VARIANT });
    const before = await shopper.cart();
    const refused = await shopper.post(path, body);
    expect(refused.status).toBe(status);
    expect(refused.body).toMatchObject(answer);
    expect(await shopper.cart()).toEqual(before);
  });

  it("answers a body that is not JSON, or too large, or the wrong method, without a cart error", async () => {
    const shopper = new Shopper();
    const invalid = await shopper.send("/cart/add.js", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(invalid).toMatchObject({ status: 400, body: { status: "bad_request", description: "invalid JSON" } });
    const large = await shopper.post("/cart/update.js", { note: "x".repeat(70_000) });
    expect(large.status).toBe(413);
    expect((await shopper.send("/cart/add.js")).status).toBe(405);
    expect((await shopper.send("/cart.js", { method: "POST" })).status).toBe(405);
    expect((await shopper.cart()).note).toBeNull();
  });
});

describe("the theme's form posts and the Ajax API share one cart", () => {
  it("Add to cart and Clear cart as forms redirect to the cart page and change the lines add.js reads", async () => {
    const shopper = new Shopper();
    const added = await shopper.form("/cart/add", `id=${VARIANT}&quantity=1`);
    expect(added).toMatchObject({ status: 302, location: "/cart" });
    const viaApi = await shopper.post("/cart/add.js", { id: VARIANT, quantity: 1 });
    expect(viaApi.body.quantity).toBe(2);
    await shopper.post("/cart/update.js", { attributes: { _lb_click: "clk_1" } });
    expect(await shopper.form("/cart/clear", "")).toMatchObject({ status: 302, location: "/cart" });
    expect(await shopper.cart()).toMatchObject({ items: [], attributes: { _lb_click: "clk_1" } });
  });

  it("answers a refused form post with Shopify's status and a page saying why", async () => {
    const shopper = new Shopper();
    const refused = await shopper.form("/cart/add", "id=12&quantity=1");
    expect(refused.status).toBe(422);
    expect(refused.body).toContain("Cannot find variant");
  });

  it("answers under the locale prefix Shopify.routes.root adds, and redirects a form back under it", async () => {
    const shopper = new Shopper();
    expect((await shopper.post("/fr/cart/add.js", { id: VARIANT })).status).toBe(200);
    expect(await shopper.form("/fr/cart/add", `id=${VARIANT}`)).toMatchObject({ status: 302, location: "/fr/cart" });
    expect((await shopper.cart()).item_count).toBe(2);
  });
});
