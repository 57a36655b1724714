import { describe, expect, it } from "vitest";
import { VisitLog } from "../../sandbox/storefront/visits";

// The stand-in shop's visits, as Shopify defines them: what an order's landing_site and
// customer journey are made of in the arena (sandbox/storefront/shop.ts).

const MINUTE = 60_000;

function log(startIso: string) {
  let now = Date.parse(startIso);
  const visits = new VisitLog(() => now);
  return { visits, later: (minutes: number) => (now += minutes * MINUTE) };
}

describe("the stand-in shop's visits", () => {
  it("keeps a visit's first page as its landing page while page views come within 30 minutes", () => {
    const { visits, later } = log("2026-11-27T10:00:00Z");
    visits.pageView("v1", "/products/x?lb_click=clk_a&tag=alice-20");
    later(29);
    visits.pageView("v1", "/cart");
    later(29);
    expect(visits.pageView("v1", "/checkouts/cn/t1").landingPage).toBe("/products/x?lb_click=clk_a&tag=alice-20");
    expect(visits.of("v1")).toHaveLength(1);
  });

  it("starts a new visit after 30 minutes without a page view, and at midnight UTC", () => {
    const { visits, later } = log("2026-11-27T23:20:00Z");
    visits.pageView("v1", "/?lb_click=clk_a");
    later(30);
    expect(visits.current("v1")).toBeNull();
    visits.pageView("v1", "/cart");
    later(15); // 00:05, fifteen minutes after the last page view
    visits.pageView("v1", "/collections/all");
    expect(visits.of("v1").map((v) => v.landingPage)).toEqual(["/?lb_click=clk_a", "/cart", "/collections/all"]);
  });

  it("gives an order's journey as the browser's first visit within 30 days and its last one", () => {
    const { visits, later } = log("2026-10-01T12:00:00Z");
    visits.pageView("v1", "/?old=1");
    later(10 * 24 * 60);
    visits.pageView("v1", "/?lb_click=clk_a");
    later(3 * 24 * 60);
    visits.pageView("v1", "/products/x");
    later(3 * 24 * 60);
    visits.pageView("v1", "/");
    // 16 days after the first visit: all within 30 days.
    expect(visits.journey("v1").map((v) => v.landingPage)).toEqual(["/?old=1", "/"]);
    later(15 * 24 * 60);
    visits.pageView("v1", "/cart");
    expect(visits.journey("v1").map((v) => v.landingPage)).toEqual(["/?lb_click=clk_a", "/cart"]);
    expect(visits.journey("v2")).toEqual([]);
  });

  it("ages every record, so that days later is played at once", () => {
    const { visits } = log("2026-11-27T10:00:00Z");
    const visit = visits.pageView("v1", "/?lb_click=clk_a");
    visits.age(3 * 24 * 60 * MINUTE);
    expect(new Date(visit.startedAt).toISOString()).toBe("2026-11-24T10:00:00.000Z");
    expect(visits.current("v1")).toBeNull();
    visits.pageView("v1", "/");
    expect(visits.journey("v1").map((v) => v.landingPage)).toEqual(["/?lb_click=clk_a", "/"]);
  });
});
