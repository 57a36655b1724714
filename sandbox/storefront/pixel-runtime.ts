// Shopify's web pixels runtime, in the browser, as far as an app pixel meets it: the page loads
// the runtime (RUNTIME_PATH), which starts the strict sandbox, a Web Worker (no DOM, no window),
// and loads each app pixel's bundle in it. The bundle registers through
// `shopify.extend("WebPixel::Render", render)` and is handed its settings (as the app saved them
// with webPixelCreate), `init` (the page's origin and URL, the visitor's consent) and the
// standard events the page publishes: page_viewed with the page's URL on every page, and
// checkout_completed on the thank-you page. Every event carries the visitor's clientId, the
// value of the `_shopify_y` cookie. The pixel's fetch is the worker's own, so its reports go to
// the storefront's origin (the app proxy) as Shopify's do.
//
// For the arena and the tests, `window.__webPixels.idle()` resolves once every event published
// so far has reached the pixel and every request it made for them was answered.

export const RUNTIME_PATH = "/cdn/wpm/runtime.js";
export const SANDBOX_PATH = "/cdn/wpm/sandbox.js";
/** Where an app pixel's bundle is served, by the pixel's id. */
export const BUNDLE_PATH = "/cdn/wpm/pixels/";
/** The element holding the page's runtime configuration (JSON). */
export const CONFIG_ELEMENT_ID = "web-pixels-config";

export interface PixelConfig {
  id: string;
  /** Settings as strings, as Shopify hands them to the pixel. */
  settings: Record<string, string>;
}

/** A standard event the page publishes besides page_viewed. */
export interface PageEvent {
  name: string;
  data: unknown;
}

/** The runtime's configuration on a page, as an inline JSON element. */
export function runtimeConfigHtml(pixels: PixelConfig[], events: PageEvent[]): string {
  const config = {
    sandbox: SANDBOX_PATH,
    pixels: pixels.map((pixel) => ({ ...pixel, bundle: `${BUNDLE_PATH}${encodeURIComponent(pixel.id)}.js` })),
    events,
  };
  // Inside a <script> element, "<" must not close it: JSON allows it escaped.
  const json = JSON.stringify(config).replace(/</g, "\\u003c");
  return `<script type="application/json" id="${CONFIG_ELEMENT_ID}">${json}</script>\n<script src="${RUNTIME_PATH}" defer></script>`;
}

/** The page's side: reads the configuration and the visitor, starts the sandbox, publishes events. */
export function runtimeScript(): string {
  return `(function () {
  var node = document.getElementById(${JSON.stringify(CONFIG_ELEMENT_ID)});
  if (!node) return;
  var config = JSON.parse(node.textContent);
  var cookie = /(?:^|;\\s*)_shopify_y=([^;]*)/.exec(document.cookie);
  var clientId = cookie ? decodeURIComponent(cookie[1]) : null;
  var privacy = window.Shopify && window.Shopify.customerPrivacy;
  var allowed = function () { return !privacy || !privacy.marketingAllowed || !!privacy.marketingAllowed(); };
  var consent = function (ok) {
    return { analyticsProcessingAllowed: ok, marketingAllowed: ok, preferencesProcessingAllowed: ok, saleOfDataAllowed: false };
  };
  var published = 0, handled = 0, waiters = [];
  var flush = function () { if (handled >= published) waiters.splice(0).forEach(function (resolve) { resolve(); }); };
  var worker = new Worker(config.sandbox);
  worker.onmessage = function (message) {
    if (message.data && message.data.type === "handled") { handled = message.data.count; flush(); }
  };
  var location = { origin: window.location.origin, href: window.location.href };
  worker.postMessage({
    type: "init",
    pixels: config.pixels,
    init: {
      context: { document: { location: location, referrer: document.referrer, title: document.title } },
      data: { customer: null, cart: null, shop: { myshopifyDomain: window.Shopify && window.Shopify.shop } },
      customerPrivacy: consent(allowed()),
    },
  });
  var id = function () {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "sh-" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  };
  var publish = function (name, data) {
    published += 1;
    worker.postMessage({ type: "event", event: {
      id: id(), name: name, clientId: clientId, timestamp: new Date().toISOString(), type: "standard",
      context: { document: { location: { origin: window.location.origin, href: window.location.href } } },
      data: data || {},
    } });
  };
  publish("page_viewed", {});
  (config.events || []).forEach(function (event) { publish(event.name, event.data); });
  document.addEventListener("visitorConsentCollected", function (event) {
    var detail = event.detail || {};
    worker.postMessage({ type: "consent", customerPrivacy: consent(!!detail.marketingAllowed) });
  });
  window.__webPixels = { idle: function () { return new Promise(function (resolve) { waiters.push(resolve); flush(); }); } };
})();
`;
}

/** The strict sandbox: a worker that loads each pixel's bundle and hands it the page's events. */
export function sandboxScript(): string {
  return `"use strict";
var subscribers = {}, consentSubscribers = [], pending = 0, received = 0;
var ownFetch = self.fetch.bind(self);
var report = function () { if (pending === 0) postMessage({ type: "handled", count: received }); };
// Counted so the page knows when what its events set off has been answered.
self.fetch = function (url, init) {
  pending += 1;
  var request = ownFetch(url, init);
  var settle = function () { pending -= 1; report(); };
  request.then(settle, settle);
  return request;
};
onmessage = function (message) {
  var data = message.data;
  if (data.type === "init") {
    data.pixels.forEach(function (pixel) {
      self.shopify = {
        extend: function (point, render) {
          if (point !== "WebPixel::Render") throw new Error("unknown extension point " + point);
          render({
            settings: pixel.settings,
            init: data.init,
            analytics: { subscribe: function (name, callback) { (subscribers[name] = subscribers[name] || []).push(callback); } },
            customerPrivacy: { subscribe: function (name, callback) { if (name === "visitorConsentCollected") consentSubscribers.push(callback); } },
            browser: {},
            _pixelInfo: { id: pixel.id },
          });
        },
      };
      importScripts(pixel.bundle);
    });
  } else if (data.type === "event") {
    received += 1;
    (subscribers[data.event.name] || []).forEach(function (callback) {
      try { callback(data.event); } catch (error) { /* one pixel's error never reaches another */ }
    });
    report();
  } else if (data.type === "consent") {
    consentSubscribers.forEach(function (callback) { callback({ customerPrivacy: data.customerPrivacy }); });
  }
};
`;
}
