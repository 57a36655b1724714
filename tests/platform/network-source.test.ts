import { describe, expect, it } from "vitest";
import { peerSource, shopperSource, sourceOf } from "../../app/platform/network-source";

describe("sourceOf", () => {
  it("counts an IPv4 address as itself and an IPv6 address by its /64", () => {
    expect(sourceOf("203.0.113.9")).toBe("203.0.113.9");
    expect(sourceOf("::ffff:203.0.113.9")).toBe("::ffff:203.0.113.9");
    expect(sourceOf("2001:db8:aa:bb:1:2:3:4")).toBe("2001:db8:aa:bb::/64");
    expect(sourceOf("2001:0db8:00aa:00bb:ffff::1")).toBe("2001:db8:aa:bb::/64");
    expect(sourceOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(sourceOf("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(sourceOf("::1")).toBe("0:0:0:0::/64");
    expect(sourceOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(sourceOf(undefined)).toBe("unknown");
  });
});

describe("peerSource", () => {
  it("counts a route's request as its connection's peer, from the load context the server gives", () => {
    expect(peerSource({ peerAddress: "203.0.113.9" })).toBe("203.0.113.9");
    expect(peerSource({ peerAddress: "2001:db8:aa:bb:1:2:3:4" })).toBe("2001:db8:aa:bb::/64");
    expect(peerSource({})).toBe("unknown");
  });
});

describe("shopperSource", () => {
  it("reads the entry Shopify's proxy appended, not what the shopper's client wrote before it", () => {
    expect(shopperSource("198.51.100.7", 0)).toBe("198.51.100.7");
    expect(shopperSource("10.9.8.7, 1.2.3.4, 198.51.100.7", 0)).toBe("198.51.100.7");
    expect(shopperSource("10.9.8.7,198.51.100.7", 0)).toBe("198.51.100.7");
  });

  it("skips the app's own proxies, counted from the end", () => {
    expect(shopperSource("10.9.8.7, 198.51.100.7, 172.16.0.2", 1)).toBe("198.51.100.7");
    expect(shopperSource("198.51.100.7, 172.16.0.2", 1)).toBe("198.51.100.7");
    expect(shopperSource("172.16.0.2", 1)).toBeNull();
  });

  it("counts an IPv6 shopper by the /64, and trusts nothing that is not an address", () => {
    expect(shopperSource("2001:db8:aa:bb:1:2:3:4", 0)).toBe("2001:db8:aa:bb::/64");
    expect(shopperSource(null, 0)).toBeNull();
    expect(shopperSource("", 0)).toBeNull();
    expect(shopperSource("unknown", 0)).toBeNull();
    expect(shopperSource("1.2.3.4, not-an-address", 0)).toBeNull();
  });
});
