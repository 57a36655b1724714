import { randomUUID } from "node:crypto";
import vm from "node:vm";

// Shopify's web pixel runtime, as far as the Tag Guard pixel uses it: the bundle (built from
// extensions/tag-guard-pixel/src by scripts/build-extension.ts) runs in a context of its own with
// only what a strict sandbox gives (no DOM, no window), registers through `shopify.extend`, and
// is handed the standard events Shopify would publish: page_viewed with the page's URL, and
// checkout_completed with the checkout's attributes and the order's id. One PixelVisitor is one
// browser: one clientId for all its events, and the consent Shopify loaded the pixel with.

type Callback = (event: unknown) => void;

export interface PixelVisitorOptions {
  /** The storefront's origin (init.context.document.location.origin): where the pixel reports. */
  origin: string;
  /** The extension's settings as webPixelCreate saved them. */
  settings: Record<string, string>;
  /** Shopify's id for this visitor; a new one when omitted. */
  clientId?: string;
  /** Whether the visitor's consent allows marketing (init.customerPrivacy.marketingAllowed). */
  marketingAllowed?: boolean;
}

export class PixelVisitor {
  readonly clientId: string;
  /** What the pixel sent, with the storefront's answer (or the error). */
  readonly sent: { url: string; body: string; status: number | string }[] = [];
  private readonly subscribers = new Map<string, Callback[]>();
  private readonly consentSubscribers: Callback[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly origin: string;

  constructor(bundle: string, options: PixelVisitorOptions) {
    this.clientId = options.clientId ?? randomUUID();
    this.origin = options.origin;
    const marketingAllowed = options.marketingAllowed ?? true;
    const track = (url: string, init: RequestInit) => {
      const request = fetch(url, init).then(
        async (response) => {
          this.sent.push({ url, body: String(init.body), status: response.status });
          await response.arrayBuffer();
          return response;
        },
        (error: unknown) => {
          this.sent.push({ url, body: String(init.body), status: String(error) });
          throw error;
        },
      );
      this.pending.add(request);
      void request.finally(() => this.pending.delete(request)).catch(() => {});
      return request;
    };
    const api = {
      settings: options.settings,
      analytics: {
        subscribe: (name: string, callback: Callback) => {
          this.subscribers.set(name, [...(this.subscribers.get(name) ?? []), callback]);
          return () => true;
        },
      },
      customerPrivacy: { subscribe: (_name: string, callback: Callback) => this.consentSubscribers.push(callback) },
      init: {
        context: { document: { location: { origin: options.origin, href: `${options.origin}/` } } },
        data: { customer: null, cart: null, shop: {}, purchasingCompany: null },
        customerPrivacy: {
          analyticsProcessingAllowed: marketingAllowed,
          marketingAllowed,
          preferencesProcessingAllowed: marketingAllowed,
          saleOfDataAllowed: false,
        },
      },
      browser: {},
      _pixelInfo: {},
    };
    const context = vm.createContext({
      shopify: {
        extend: (point: string, extend: (a: typeof api) => void) => {
          if (point !== "WebPixel::Render") throw new Error(`unknown extension point ${point}`);
          extend(api);
        },
      },
      fetch: track,
      URL,
      URLSearchParams,
      JSON,
      console,
    });
    vm.runInContext(bundle, context);
  }

  /** The visitor views a page of the storefront (path and query, e.g. "/products/x?lb_click=..."). */
  pageViewed(pathAndQuery: string): void {
    const href = new URL(pathAndQuery, this.origin).href;
    this.emit("page_viewed", { context: { document: { location: { href, origin: this.origin } } }, data: {} });
  }

  /**
   * The visitor's checkout became an order: Shopify publishes checkout_completed on the thank-you
   * page, with the checkout's token (the one orders/create carries as checkout_token).
   */
  checkoutCompleted(orderId: string, attributes: Record<string, string>, checkoutToken: string | null): void {
    this.emit("checkout_completed", {
      context: { document: { location: { href: `${this.origin}/checkouts/thank-you`, origin: this.origin } } },
      data: {
        checkout: {
          token: checkoutToken,
          attributes: Object.entries(attributes).map(([key, value]) => ({ key, value })),
          order: { id: `gid://shopify/OrderIdentity/${orderId}`, customer: null },
        },
      },
    });
  }

  /** The visitor answers the consent banner. */
  consent(marketingAllowed: boolean): void {
    for (const callback of this.consentSubscribers) callback({ customerPrivacy: { marketingAllowed } });
  }

  /** Resolves once every report sent so far has been answered. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private emit(name: string, event: Record<string, unknown>): void {
    const full = {
      id: `sh-${randomUUID()}`,
      name,
      clientId: this.clientId,
      timestamp: new Date().toISOString(),
      type: "standard",
      ...event,
    };
    for (const callback of this.subscribers.get(name) ?? []) callback(full);
  }
}
