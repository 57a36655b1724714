import type { BrowserContext, Page } from "playwright-core";
import type { ShopStorefront } from "../storefront/shop";
import { VISITOR_COOKIE } from "../storefront/visits";
import type { Creator } from "./cast";
import type { Role, Step } from "./entry";
import { passTime, type JourneyRecords } from "./time";

// The shopper's side of a journey, in the browser: each step is what a person does (follows a
// link, clicks a button), and after every page the arena waits for what the page set off to
// finish before the shopper moves on, as a person reading the page gives it time to: the
// attacker's turn (its mark on the page), the app embed's capture (its status attribute), the
// web pixel's reports (the runtime's idle), and every app proxy call answered. Waits on scripts
// another extension may hold back for good are bounded and leave a note instead of failing.

export interface Shopper {
  context: BrowserContext;
  /** The tab the shopper is using. */
  page: Page;
  storefront: ShopStorefront;
  clickServiceUrl: string;
  /** The account behind each creator role the steps name. */
  creators: Record<Role, Creator>;
  /** The built-in attacker is loaded: every page waits for its mark. */
  attacker: boolean;
  /** The shop's web pixel can run in this browser (not blocked, not kept off by the attacker). */
  pixelRuns: boolean;
  records: JourneyRecords;
  /** What did not go as a page normally goes (a script that never finished, a page error). */
  notes: string[];
  /** The browser's user agent: the stand-in shop knows the shopper's network address by it. */
  userAgent: string;
  /** Opens a private window of this browser, or the browser of another shopper behind the same address. */
  open(kind: "private-window" | "other-shopper"): Promise<Shopper>;
  /** The other shopper, once a step has brought them in. */
  other?: Shopper;
}

/** The steps a shopper reads the page before, and for how long. */
const READ_BEFORE = new Set<Step["do"]>(["add-to-cart", "clear-cart", "checkout", "buy-now"]);
const READING_MINUTES = 1;

/** Addresses the arena's shoppers move to when their network changes (TEST-NET-3, never routed). */
let nextAddress = 10;

const PRODUCT_PATH = "/products/merino-beanie";
/** A bounded wait on a script of the page: long enough on a loaded machine. */
const SCRIPT_WAIT_MS = 15_000;
/** The app proxy is quiet once no call has arrived and none is unanswered for this long. */
const PROXY_QUIET_MS = 300;

export async function playStep(shopper: Shopper, step: Step): Promise<void> {
  const { storefront } = shopper;
  // A person reads a page before acting on it: what happened on the page before is that much
  // older. Without it every journey takes seconds, and a visit begun at checkout would look as
  // old as the landing.
  if (READ_BEFORE.has(step.do)) await passTime(shopper.records, READING_MINUTES);
  switch (step.do) {
    case "link": {
      const { creatorId, tag } = shopper.creators[step.creator];
      const to = storefront.url(PRODUCT_PATH);
      await goto(
        shopper,
        `${shopper.clickServiceUrl}/sandbox/links/${encodeURIComponent(creatorId)}?tag=${encodeURIComponent(tag)}&to=${encodeURIComponent(to)}`,
      );
      return;
    }
    case "visit":
      return goto(shopper, storefront.url(step.path));
    case "add-to-cart":
      if (!onPage(shopper, /^\/($|products\/)/)) await goto(shopper, storefront.url(PRODUCT_PATH));
      return submit(shopper, "#add-to-cart", /\/cart$/);
    case "clear-cart":
      if (!onPage(shopper, /^\/cart$/)) await goto(shopper, storefront.url("/cart"));
      return submit(shopper, "#clear-cart", /\/cart$/);
    case "checkout":
      if (!onPage(shopper, /^\/cart$/)) await goto(shopper, storefront.url("/cart"));
      await submit(shopper, "#checkout", /\/checkouts\/cn\/[^/]+$/);
      return submit(shopper, "#pay-now", /\/thank-you$/);
    case "buy-now":
      if (!onPage(shopper, /^\/($|products\/)/)) await goto(shopper, storefront.url(PRODUCT_PATH));
      await submit(shopper, "#buy-it-now", /\/checkouts\/cn\/[^/]+$/);
      return submit(shopper, "#pay-now", /\/thank-you$/);
    case "later":
      return passTime(shopper.records, step.minutes);
    case "new-tab":
      shopper.page = await shopper.context.newPage();
      watch(shopper);
      return;
    case "private-window": {
      // A private window shares nothing with the browser's other windows, extensions included.
      const window = await shopper.open("private-window");
      Object.assign(shopper, { context: window.context, page: window.page, attacker: false });
      return;
    }
    case "clear-cookies":
      return shopper.context.clearCookies();
    case "expire-visitor-cookie":
      return shopper.context.clearCookies({ name: VISITOR_COOKIE });
    case "new-address":
      storefront.addresses.set(shopper.userAgent, `203.0.113.${nextAddress++ % 250}`);
      return;
    case "other-shopper": {
      shopper.other ??= await shopper.open("other-shopper");
      for (const inner of step.journey) await playStep(shopper.other, inner);
      return;
    }
  }
}

/**
 * The minutes a journey's steps move the shop's records back (its "later" steps and the reading
 * before each page a person acts on): how much of a population run's simulated days it spends.
 */
export function journeyMinutes(steps: readonly Step[]): number {
  return steps.reduce(
    (sum, step) =>
      sum +
      (READ_BEFORE.has(step.do) ? READING_MINUTES : 0) +
      (step.do === "later" ? step.minutes : 0) +
      (step.do === "other-shopper" ? journeyMinutes(step.journey) : 0),
    0,
  );
}

/** Opens a URL in the shopper's tab (the order status page again, say) and lets the page finish. */
export async function goto(shopper: Shopper, url: string): Promise<void> {
  await shopper.page.goto(url, { waitUntil: "load" });
  await settle(shopper);
}

/** Records the page errors of the shopper's tab. */
export function watch(shopper: Shopper): void {
  shopper.page.on("pageerror", (error) => shopper.notes.push(`page error: ${error.message.split("\n")[0]}`));
}

function onPage(shopper: Shopper, path: RegExp): boolean {
  const url = new URL(shopper.page.url());
  return url.origin === shopper.storefront.origin && path.test(url.pathname);
}

/** Clicks a form's button and follows the navigation it makes to a URL whose path matches `to`. */
async function submit(shopper: Shopper, selector: string, to: RegExp): Promise<void> {
  const { page } = shopper;
  const from = new URL(page.url()).pathname;
  try {
    await Promise.all([page.waitForURL((url) => to.test(url.pathname), { waitUntil: "load" }), page.click(selector)]);
  } catch (error) {
    // Where the shopper ended up says more than the timeout: a form that led back to the cart, say.
    const at = page.isClosed() ? "a closed tab" : new URL(page.url()).pathname;
    throw new Error(`${selector} on ${from} led to ${at}: ${(error as Error).message.split("\n")[0]}`);
  }
  await settle(shopper);
}

async function settle(shopper: Shopper): Promise<void> {
  if (shopper.attacker) await attackerTurn(shopper.page);
  const path = new URL(shopper.page.url()).pathname;
  await bounded(shopper, `the app embed on ${path}`, embedDone(shopper.page));
  if (shopper.pixelRuns) await bounded(shopper, `the web pixel on ${path}`, pixelIdle(shopper.page));
  await proxyQuiet(shopper.storefront);
}

/**
 * Waits for the built-in attacker's mark on the page ("done"); it may first send the tab
 * elsewhere ("navigating"), and the mark is then awaited on the page the tab ends up on.
 */
async function attackerTurn(page: Page): Promise<void> {
  const deadline = Date.now() + SCRIPT_WAIT_MS * 2;
  for (;;) {
    try {
      await page.waitForLoadState("load");
      const mark = await page.waitForFunction(
        () => {
          const state = document.documentElement?.getAttribute("data-arena-attacker");
          return state && state !== "navigating" ? state : null;
        },
        null,
        { timeout: Math.max(1, deadline - Date.now()) },
      );
      const state = (await mark.jsonValue()) as string;
      if (state !== "done") throw new AttackerFailed(`the attacker extension ${state}`);
      return;
    } catch (error) {
      if (error instanceof AttackerFailed || Date.now() >= deadline) throw error;
      // The page went away under the wait (the attacker navigated): look again on the next one.
    }
  }
}

class AttackerFailed extends Error {}

/** The app embed's status on its own element; a page without the embed has nothing to wait for. */
async function embedDone(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const script = document.querySelector("script[data-tag-params]");
      return script ? script.getAttribute("data-tag-guard") : "absent";
    },
    null,
    { timeout: SCRIPT_WAIT_MS },
  );
}

/** Every event the page published has reached the pixel, and what the pixel sent was answered. */
async function pixelIdle(page: Page): Promise<void> {
  const running = await page.waitForFunction(
    () =>
      "__webPixels" in window
        ? "running"
        : document.getElementById("web-pixels-config")
          ? null
          : "no pixel on the page",
    null,
    { timeout: SCRIPT_WAIT_MS },
  );
  if ((await running.jsonValue()) !== "running") return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    page.evaluate(() => (window as unknown as { __webPixels: { idle(): Promise<void> } }).__webPixels.idle()),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("its reports were not all answered")), SCRIPT_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function bounded(shopper: Shopper, what: string, wait: Promise<void>): Promise<void> {
  try {
    await wait;
  } catch (error) {
    shopper.notes.push(`${what} did not finish: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Resolves once every call to the app proxy has been answered and none has come for a moment. */
async function proxyQuiet(storefront: ShopStorefront, timeoutMs = SCRIPT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const calls = storefront.proxyCalls;
    if (calls.length !== seen || calls.some((call) => call.status === undefined)) {
      seen = calls.length;
      since = Date.now();
    } else if (Date.now() - since >= PROXY_QUIET_MS) return;
    if (Date.now() > deadline) throw new Error("the app proxy did not answer every call");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
