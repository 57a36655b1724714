// In-memory rate limits for the public app proxy, per cart token and per shopper address, both
// within one shop. The address is the one Shopify's proxy forwards (network-source.ts), held
// here only as a key for a minute's counting, never stored. Each instance
// counts on its own: the durable caps (new clicks per cart, lookups per shop) are in the
// database (record-touch.server.ts).

export interface WindowLimit {
  /** Calls allowed per window. */
  limit: number;
  windowMs: number;
}

export const TOUCHES_PER_CART: WindowLimit = { limit: 60, windowMs: 60_000 };
export const TOUCHES_PER_ADDRESS: WindowLimit = { limit: 120, windowMs: 60_000 };

/** Keys remembered at most; the oldest window is forgotten first, so memory stays bounded. */
const MAX_KEYS = 50_000;

export class FixedWindowCounter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(private readonly rule: WindowLimit) {}

  /** Counts a call; returns 0 when allowed, else the milliseconds until the window resets. */
  hit(key: string, now: number): number {
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.rule.windowMs) {
      this.windows.delete(key);
      window = { startedAt: now, count: 0 };
      this.windows.set(key, window);
      if (this.windows.size > MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
    }
    window.count += 1;
    return window.count > this.rule.limit ? window.startedAt + this.rule.windowMs - now : 0;
  }
}

const perCart = new FixedWindowCounter(TOUCHES_PER_CART);
const perAddress = new FixedWindowCounter(TOUCHES_PER_ADDRESS);

/**
 * 0 when the call may go on, else the milliseconds to wait (the larger of the two limits). A
 * report without a cart (tracking declined) counts against its address only.
 */
export function touchLimit(shop: string, cartToken: string | null, shopper: string | null, now: number): number {
  const cart = cartToken === null ? 0 : perCart.hit(`${shop} ${cartToken}`, now);
  const client = shopper ? perAddress.hit(`${shop} ${shopper}`, now) : 0;
  return Math.max(cart, client);
}
