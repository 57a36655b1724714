import { describe, expect, it } from "vitest";
import { ShopifyStandinStore } from "../../sandbox/shopify";
import { ordersConnection, searchOrders } from "../../sandbox/shopify/order-reads";
import { orderPayload } from "../support/fixtures";

// The stand-in's orders listing as the reconciliation sweep pages it: Shopify's search on
// updated_at, sorted by UPDATED_AT, and cursors that survive an order changing between pages.

function storeWithOrders(count: number) {
  let now = Date.parse("2026-11-27T10:00:00Z");
  const store = new ShopifyStandinStore(() => now);
  const shop = "reads.myshopify.com";
  const gids: string[] = [];
  for (let i = 0; i < count; i++) {
    gids.push(store.createOrder(shop, orderPayload()).gid);
    now += 1_000;
  }
  return { store, shop, gids, later: (ms: number) => (now += ms) };
}

describe("the stand-in's orders listing", () => {
  it("searches updated_at windows to the second and refuses terms it does not know", () => {
    const { store, shop } = storeWithOrders(5);
    const orders = [...store.shop(shop).orders.values()];
    const found = searchOrders(orders, "updated_at:>='2026-11-27T10:00:01Z' AND updated_at:<='2026-11-27T10:00:03Z'");
    expect(found.map((o) => o.updatedAt)).toEqual([
      "2026-11-27T10:00:01Z",
      "2026-11-27T10:00:02Z",
      "2026-11-27T10:00:03Z",
    ]);
    expect(() => searchOrders(orders, "financial_status:paid")).toThrow(/updated_at\/created_at/);
  });

  it("pages by the last order's sort value, so an order tagged between pages shifts no other out", () => {
    const { store, shop, gids, later } = storeWithOrders(6);
    const list = (after: string | null) =>
      ordersConnection(
        [...store.shop(shop).orders.values()].filter((o) => o.updatedAt <= "2026-11-27T10:00:05Z"),
        {
          first: 3,
          after,
          sortKey: "UPDATED_AT",
        },
      );
    const first = list(null);
    expect(first.slice.map((o) => o.gid)).toEqual(gids.slice(0, 3));
    // The app tags the first order: it moves to now, out of the window being listed.
    later(60_000);
    store.tagsAdd(store.shop(shop), gids[0]!, ["affiliate-hijacked"]);
    const second = list(first.pageInfo.endCursor);
    expect(second.slice.map((o) => o.gid)).toEqual(gids.slice(3, 6));
    expect(second.pageInfo.hasNextPage).toBe(false);
  });
});
