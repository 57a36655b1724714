import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getGlobalDispatcher, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { routeShopifyTrafficTo } from "../../app/platform/shopify-standin-routing.server";

interface Echo {
  server: Server;
  url: string;
  seen: Array<{ url: string; headers: Record<string, unknown> }>;
}

async function echoServer(name: string): Promise<Echo> {
  const seen: Echo["seen"] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: { ...req.headers } });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        server: name,
        url: req.url,
        host: req.headers.host,
        shop: req.headers["x-shopify-standin-shop"] ?? null,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let standin: Echo;
let other: Echo;

beforeAll(async () => {
  standin = await echoServer("standin");
  other = await echoServer("other");
});
afterAll(async () => {
  for (const e of [standin, other]) await new Promise((r) => e.server.close(r));
});

describe("routeShopifyTrafficTo", () => {
  it("refuses to run in production", () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = "production";
    try {
      expect(() => routeShopifyTrafficTo("http://127.0.0.1:1")).toThrow(/development-only/);
    } finally {
      process.env.NODE_ENV = before;
    }
  });

  it(`routes Node ${process.version}'s built-in fetch (bundled undici ${process.versions.undici}) for *.myshopify.com through the npm undici global dispatcher`, async () => {
    // The fetch under test is Node's own, not the npm package's.
    expect(globalThis.fetch).not.toBe(undiciFetch);
    const routing = routeShopifyTrafficTo(standin.url);
    try {
      const res = await fetch(`https://some-shop.myshopify.com/admin/api/${apiVersion}/graphql.json?x=1&y=two`, {
        method: "POST",
        headers: { "X-Shopify-Access-Token": "t", "Content-Type": "application/json" },
        body: "{}",
      });
      expect(await res.json()).toEqual({
        server: "standin",
        url: `/admin/api/${apiVersion}/graphql.json?x=1&y=two`,
        host: "some-shop.myshopify.com",
        shop: "some-shop.myshopify.com",
      });
      expect(standin.seen.at(-1)!.headers["x-shopify-access-token"]).toBe("t");

      // Any other host goes where it was addressed, untouched.
      const direct = await fetch(`${other.url}/plain?q=1`);
      expect(await direct.json()).toMatchObject({ server: "other", url: "/plain?q=1", shop: null });

      // A host name that is not *.myshopify.com is not rerouted either.
      const byName = await fetch(`${other.url.replace("127.0.0.1", "localhost")}/named`);
      expect(await byName.json()).toMatchObject({ server: "other", url: "/named", shop: null });
    } finally {
      await routing.restore();
    }
  });

  it("puts the previous global dispatcher back once restored", async () => {
    const before = getGlobalDispatcher();
    const routing = routeShopifyTrafficTo(standin.url);
    expect(getGlobalDispatcher()).not.toBe(before);
    await routing.restore();
    expect(getGlobalDispatcher()).toBe(before);
  });
});
