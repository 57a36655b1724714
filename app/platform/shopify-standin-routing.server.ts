// DEVELOPMENT ONLY. Sends every outbound request for *.myshopify.com to the Shopify stand-in
// (sandbox/shopify) by installing an undici global dispatcher. Node's global fetch (which
// @shopify/shopify-api uses through its web-api adapter) dispatches through the dispatcher
// stored under Symbol.for('undici.globalDispatcher.1'), which npm undici's
// setGlobalDispatcher sets too; tests/sandbox-shopify proves it on this Node version.
// Other hosts are untouched. Refuses to run when NODE_ENV is "production".
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici";

export const STANDIN_SHOP_HEADER = "x-shopify-standin-shop";

export interface StandinRouting {
  /** The stand-in origin requests are sent to. */
  origin: string;
  /** Puts back the dispatcher that was global before. */
  restore(): Promise<void>;
}

type HeaderInput = Dispatcher.DispatchOptions["headers"];

function withHeaders(headers: HeaderInput, extra: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    const lower = key.toLowerCase();
    if (lower in extra) return;
    const text = Array.isArray(value) ? value.map(String) : String(value);
    const prev = out[lower];
    out[lower] = prev === undefined ? text : ([] as string[]).concat(prev, text);
  };
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const pair of headers as unknown as Array<[string, string]>) add(pair[0], pair[1]);
    } else {
      for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), headers[i + 1]);
    }
  } else if (headers && typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const [k, v] of headers as Iterable<[string, string]>) add(k, v);
  } else if (headers) {
    for (const [k, v] of Object.entries(headers)) add(k, v);
  }
  return { ...out, ...extra };
}

export function routeShopifyTrafficTo(standinUrl: string): StandinRouting {
  if (process.env.NODE_ENV === "production") {
    throw new Error("routeShopifyTrafficTo is development-only and refuses to run with NODE_ENV=production");
  }
  const target = new URL(standinUrl);
  const origin = target.origin;
  const previous = getGlobalDispatcher();
  const interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    const from = typeof opts.origin === "string" ? new URL(opts.origin) : opts.origin;
    const host = from?.hostname.toLowerCase() ?? "";
    if (!host.endsWith(".myshopify.com")) return dispatch(opts, handler);
    const headers = withHeaders(opts.headers, { [STANDIN_SHOP_HEADER]: host, host });
    return dispatch({ ...opts, origin, headers }, handler);
  };
  const agent = new Agent().compose(interceptor);
  setGlobalDispatcher(agent);
  let restored = false;
  return {
    origin,
    async restore() {
      if (restored) return;
      restored = true;
      if (getGlobalDispatcher() === agent) setGlobalDispatcher(previous);
      await agent.close();
    },
  };
}
