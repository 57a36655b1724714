import { isIP } from "node:net";
import type { AppLoadContext } from "@remix-run/node";

// Who a request comes from, as the app's limits count it. Two places ask: every webhook route
// counts body bytes against the connection's peer (Shopify connects to the app itself), and the
// app proxy counts touches against the shopper, whose address only Shopify's proxy can vouch for.

declare module "@remix-run/node" {
  interface AppLoadContext {
    /**
     * The connection's peer address (Node's socket.remoteAddress), which the server (server.mjs)
     * hands every loader and action: Remix's Fetch Request does not carry it.
     */
    peerAddress?: string;
  }
}

/**
 * The source an address is counted as: an IPv6 address by its /64, the block one subscriber is
 * given, so that a single host cannot pass for many. IPv4 (and IPv4 mapped into IPv6, as a
 * dual-stack server sees it) is its own address.
 */
export function sourceOf(address: string | undefined): string {
  if (!address) return "unknown";
  if (!address.includes(":") || address.includes(".")) return address;
  const zone = address.indexOf("%");
  const bare = zone === -1 ? address : address.slice(0, zone);
  const gap = bare.indexOf("::");
  const head = (gap === -1 ? bare : bare.slice(0, gap)).split(":").filter(Boolean);
  const tail =
    gap === -1
      ? []
      : bare
          .slice(gap + 2)
          .split(":")
          .filter(Boolean);
  const groups = [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * The shopper behind an app proxy call, as a source (sourceOf), or null when no address can be
 * trusted. Shopify's proxy appends the shopper's address to X-Forwarded-For; whatever stands
 * before it the shopper's own client wrote, so the entry is read from the end: the last one, or
 * `trustedHops` before it when the app's own proxies (a load balancer) append theirs after
 * Shopify's. Anything there that is not an IP address is no address.
 */
export function shopperSource(forwardedFor: string | null, trustedHops: number): string | null {
  if (!forwardedFor) return null;
  const entries = forwardedFor.split(",").map((entry) => entry.trim());
  const entry = entries[entries.length - 1 - trustedHops];
  if (!entry || isIP(entry) === 0) return null;
  return sourceOf(entry);
}

/**
 * The source of a request Remix answers: its connection's peer, from the load context. Without
 * one (a server that gives none) every such request counts as one source, "unknown".
 */
export function peerSource(context: AppLoadContext): string {
  return sourceOf(context.peerAddress);
}
