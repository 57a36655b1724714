import type { Browser, Page } from "playwright-core";
import type { SeededShop } from "../../sandbox/admin-pages/seed-shop";
import { openEmbeddedPage, type EmbeddedAdminConfig } from "./embedded-admin";

// Every admin page a merchant can open, for the suites (and `npm run screenshots`) that look
// at all of them: on a shop with data (sandbox/admin-pages/seed-shop.ts) and on a fresh one.

export interface AdminPageState {
  /** A file-name-safe name: "dashboard", "order-hijacked", ... */
  name: string;
  path: string;
  /** The document title the page must set. */
  title: string;
}

export function adminPageStates(seeded: SeededShop | null): AdminPageState[] {
  const orders: AdminPageState[] = seeded
    ? [
        { name: "order-hijacked", path: `/app/orders/${seeded.hijackedOrder}`, title: "Order #1002 · Tag Guard" },
        { name: "order-failed", path: `/app/orders/${seeded.failedOrder}`, title: "Order #1006 · Tag Guard" },
        { name: "order-contested", path: `/app/orders/${seeded.contestedOrder}`, title: "Order #1007 · Tag Guard" },
      ]
    : // A fresh shop has no order: the page a merchant reaches from an old link.
      [{ name: "order-not-found", path: "/app/orders/424242", title: "Order not found · Tag Guard" }];
  return [
    { name: "dashboard", path: "/app", title: "Dashboard · Tag Guard" },
    ...orders,
    { name: "commissions", path: "/app/commissions", title: "Commissions · Tag Guard" },
    { name: "creators", path: "/app/creators", title: "Creators · Tag Guard" },
    seeded
      ? {
          name: "creator-suspected",
          path: `/app/creators?creator=${seeded.suspectedCreator}`,
          title: `Creator ${seeded.suspectedCreator} · Tag Guard`,
        }
      : // A creator nothing names: the page a merchant reaches by searching an id.
        { name: "creator-unknown", path: "/app/creators?creator=cr_nobody", title: "Creator cr_nobody · Tag Guard" },
    { name: "payouts", path: "/app/payouts", title: "Payouts · Tag Guard" },
    { name: "codes", path: "/app/codes", title: "Discount codes · Tag Guard" },
    { name: "settings", path: "/app/settings", title: "Settings · Tag Guard" },
  ];
}

// What App Bridge says of the theme embed: switched on, as on a shop that finished setting up.
const EMBED_ACTIVE = [
  {
    handle: "click-capture",
    type: "theme_app_extension",
    activations: [
      {
        handle: "click-capture",
        name: "Tag Guard click capture",
        target: "body",
        status: "active",
        activations: [{ target: "body", themeId: "gid://shopify/OnlineStoreTheme/1" }],
      },
    ],
  },
];

/**
 * Opens `pathname` as Shopify admin does (embedded, App Bridge stubbed) in a fresh context
 * `width` pixels wide, and resolves once the page has loaded its data and hydrated.
 */
export async function openAdminPage(
  browser: Browser,
  admin: EmbeddedAdminConfig,
  pathname: string,
  width = 1280,
  /** Listens to the page before it loads (its console, say), beside the errors always logged. */
  listen?: (page: Page) => void,
): Promise<Page> {
  // A state's own query (a creator's page: ?creator=) rides after the embedded admin's.
  const [path, search] = pathname.split("?");
  const page = await openEmbeddedPage(browser, admin, path!, {
    query: search ? `&${search}` : undefined,
    context: { viewport: { width, height: width < 490 ? 844 : 900 } },
    stub: { extensions: EMBED_ACTIVE },
    // Only errors: a page in an error state (the database out of reach) is answered 500 on purpose.
    watch: (opened) => {
      opened.on("pageerror", (error) => console.error(`[browser] ${error.message.slice(0, 600)}`));
      listen?.(opened);
    },
  });
  await page.waitForLoadState("networkidle");
  return page;
}
