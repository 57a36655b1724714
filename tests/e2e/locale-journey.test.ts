import type { Page, Response } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { RECONCILE_JOB } from "../../app/reconciliation/reconciliation.server";
import german from "../../app/i18n/locales/de.json";
import { seedShopWithData, type SeededShop } from "../../sandbox/admin-pages/seed-shop";
import { logProblems } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";
import { commissionOfMatched, matchedOrderRow } from "../../sandbox/admin-pages/order-row";

// Shopify admin opens the app with `?locale=` once; inside its frame every link, form, fetcher
// and download is the app's own, so the language lasts only as far as each of them carries it.
// A German merchant here walks the navigation menu to every page and back, and sends every
// form and action of the admin once, on a seeded shop (the stand-ins answer Shopify, and the
// shop has no PayPal account, so a run with PayPal is refused in German rather than sent).
// After each step: the URL still says `?locale=de`, the page is in German, and every request
// the page made to the app (documents, data, actions, fetchers, CSV files) carried `?locale=de`,
// since a request without it is answered in the browser's language (English here) instead.
// Not sent: "I checked it" on a sent payout (it needs a payout the provider left unsettled,
// which only a PayPal or Shopify run can leave) and store credit or gift card runs (the same
// action as the PayPal run, asking for scopes first).

const SHOP = "e2e-locale-journey.myshopify.com";
const DISCOUNT_SCOPES = ["read_discounts", "write_discounts"];
const suite = useEmbeddedAdmin({ shop: SHOP, apiKey: "e2e-journey-api-key", apiSecret: "e2e-journey-api-secret" });
const prisma = databaseClient();
let seeded: SeededShop;

/** A German message as a pattern, any {placeholder} not filled standing for any text. */
function dePattern(key: string, vars: Record<string, string> = {}): RegExp {
  const escaped = de(key, vars).replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped.replace(/\{\w+\}/g, ".+")}$`);
}

/** A German message by its dotted key, its {placeholders} filled. */
function de(key: string, vars: Record<string, string> = {}): string {
  const found = key.split(".").reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], german);
  if (typeof found !== "string") throw new Error(`no German message ${key}`);
  return found.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? `{${name}}`);
}

/** More commissions than the ledger's page of 50, so it has a next page to follow. */
async function seedLedgerPages(count: number) {
  const at = new Date(Date.now() - 5 * 86_400_000);
  for (let i = 0; i < count; i++) {
    const orderId = String(7_000 + i);
    const verification = await prisma.verification.create({
      data: {
        ...matchedOrderRow(SHOP, orderId, at, { creatorId: "cr_dana", tag: "dana-20" }),
        verdict: "matched",
        capturedAt: at,
        currency: "USD",
        orderValue: "50.00",
      },
    });
    await prisma.commission.create({
      data: {
        ...commissionOfMatched(verification),
        orderValue: "50.00",
        currency: "USD",
        rate: "10",
        amount: "5.00",
        amountMinor: 500n,
        status: "pending",
        redirected: false,
        entries: { create: [{ shop: SHOP, kind: "credit", amountMinor: 500n, amount: "5.00", createdAt: at }] },
      },
    });
  }
}

beforeAll(async () => {
  seeded = await seedShopWithData(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
  await seedLedgerPages(50);
  // The dashboard's reconciliation card shows once the shop has a sweep.
  const since = new Date(Date.now() - 30 * 86_400_000);
  await prisma.shopReconciliation.create({ data: { shop: SHOP, since, watermark: since } });
  // The code switched off below: granted its scopes, and a discount in Shopify to switch off.
  suite.standin.store.grantScopes(SHOP, DISCOUNT_SCOPES);
  suite.standin.store.ensureDiscount(SHOP, "LEAKED20");
}, 120_000);

interface Journey {
  page: Page;
  /** Requests to the app that went without `?locale=de`, since the last check. */
  dropped: string[];
}

async function openJourney(): Promise<Journey> {
  const dropped: string[] = [];
  const origin = new URL(suite.appUrl).origin;
  const granted = ["read_orders", "write_orders", ...DISCOUNT_SCOPES];
  const page = await suite.openPage("/app", {
    query: "&locale=de",
    // The browser's own language is English: a request that lost `?locale=` is answered in it.
    context: { locale: "en-US" },
    async watch(opened) {
      logProblems(opened);
      await opened.addInitScript(
        (scopes) => {
          (window as unknown as { tagGuardScopesQuery: () => unknown }).tagGuardScopesQuery = () => ({
            granted: scopes,
            required: ["read_orders", "write_orders"],
            optional: ["read_discounts", "write_discounts"],
          });
        },
        [...granted],
      );
      opened.on("request", (request) => {
        const url = new URL(request.url());
        if (url.origin !== origin) return;
        // Scripts, styles and Remix's route manifest: the same in every language.
        if (/^\/(assets\/|__manifest|favicon)/.test(url.pathname)) return;
        if (url.searchParams.get("locale") !== "de") dropped.push(`${request.method()} ${url.pathname}${url.search}`);
      });
    },
  });
  return { page, dropped };
}

/** Until Remix has nothing in flight: no navigation, no revalidation, no fetcher. */
async function settled(page: Page) {
  await page.waitForFunction(() => {
    const router = (window as unknown as { __remixRouter?: { state: RouterState } }).__remixRouter;
    if (!router) return false;
    const { navigation, revalidation, fetchers } = router.state;
    return (
      navigation.state === "idle" && revalidation === "idle" && [...fetchers.values()].every((f) => f.state === "idle")
    );
  });
}
interface RouterState {
  navigation: { state: string };
  revalidation: string;
  fetchers: Map<string, { state: string }>;
}

/** Does `act` and waits for the app's answer to the form it sends (a POST), then for the page to settle. */
async function sent(journey: Journey, act: () => Promise<void>): Promise<Response> {
  const origin = new URL(suite.appUrl).origin;
  const answered = journey.page.waitForResponse(
    (response) => response.request().method() === "POST" && new URL(response.url()).origin === origin,
  );
  await act();
  const response = await answered;
  await settled(journey.page);
  return response;
}

/** Does `act` and waits for the app's answer to a GET of `pathname` (a file, say). */
async function fetched(journey: Journey, pathname: RegExp, act: () => Promise<void>): Promise<Response> {
  const answered = journey.page.waitForResponse((response) => pathname.test(new URL(response.url()).pathname));
  await act();
  return answered;
}

/** Does `act` and waits for the page at `pathname` (its query as `query` says) to load and settle. */
async function navigated(
  journey: Journey,
  pathname: string,
  act: () => Promise<void>,
  query: (params: URLSearchParams) => boolean = () => true,
) {
  await act();
  await journey.page.waitForURL((url) => url.pathname === pathname && query(url.searchParams));
  await settled(journey.page);
}

/** The page is still the German one: its URL, its document's language, its heading, and every request since. */
async function stillGerman(journey: Journey, step: string, heading: string) {
  const { page, dropped } = journey;
  expect(new URL(page.url()).searchParams.get("locale"), `${step}: ${page.url()}`).toBe("de");
  expect(await page.locator("html").getAttribute("lang"), step).toBe("de");
  await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor();
  expect(dropped.splice(0), `${step}: requests without ?locale=de`).toEqual([]);
}

const navLink = (page: Page, key: string) =>
  page
    .locator("ui-nav-menu a")
    .filter({ hasText: de(`nav.${key}`) })
    .first();

describe("a German merchant's admin", () => {
  it("keeps ?locale=de through the navigation menu to every page and back", { timeout: 90_000 }, async () => {
    const journey = await openJourney();
    const { page } = journey;
    await settled(page);
    await stillGerman(journey, "dashboard", de("dashboard.title"));
    for (const [key, path, heading] of [
      ["commissions", "/app/commissions", de("ledger.title")],
      ["codes", "/app/codes", de("codes.title")],
      ["creators", "/app/creators", de("creators.title")],
      ["payouts", "/app/payouts", de("payouts.title")],
      ["settings", "/app/settings", de("settings.title")],
    ] as const) {
      await navigated(journey, path, () => navLink(page, key).click());
      await stillGerman(journey, `menu to ${key}`, heading);
      await navigated(journey, "/app", () => navLink(page, "dashboard").click());
      await stillGerman(journey, `menu from ${key} back to the dashboard`, de("dashboard.title"));
    }
    await page.context().close();
  });

  it("keeps ?locale=de after every form and action of the admin", { timeout: 240_000 }, async () => {
    // The shop's first sweep, queued when the app was first opened (the test before), has run and
    // the next is due tomorrow, as the worker leaves it (this app runs no worker): "Check now" is offered.
    await prisma.job.updateMany({
      where: { kind: RECONCILE_JOB, subject: SHOP },
      data: { state: "queued", runAt: new Date(Date.now() + 86_400_000) },
    });
    const journey = await openJourney();
    const { page } = journey;
    await settled(page);

    // The dashboard: the reconciliation sweep asked for now (a fetcher).
    await sent(journey, () => page.getByRole("button", { name: de("reconciliation.checkNow") }).click());
    await page.getByRole("button", { name: de("reconciliation.checking") }).waitFor();
    await stillGerman(journey, "reconciliation check", de("dashboard.title"));

    // An order whose verification failed, reached from the dashboard: retried.
    await navigated(journey, `/app/orders/${seeded.failedOrder}`, () =>
      page.locator(`a[href^="/app/orders/${seeded.failedOrder}"]`).first().click(),
    );
    await stillGerman(journey, "failed order", de("order.title", { name: "#1006" }));
    await sent(journey, () => page.getByRole("button", { name: de("order.retry") }).click());
    await stillGerman(journey, "order retried", de("order.title", { name: "#1006" }));
    await navigated(journey, "/app", () => page.getByRole("link", { name: de("common.back") }).click());
    await stillGerman(journey, "back from an order", de("dashboard.title"));

    // The ledger: filtered (a GET form), its next page, its CSV, and the contested order's decision.
    await navigated(journey, "/app/commissions", () => navLink(page, "commissions").click());
    await navigated(
      journey,
      "/app/commissions",
      () => page.getByRole("link", { name: de("ledger.next") }).click(),
      (params) => params.has("cursor"),
    );
    await stillGerman(journey, "ledger's next page", de("ledger.title"));
    await navigated(
      journey,
      "/app/commissions",
      async () => {
        await page.getByLabel(de("ledger.creator")).fill("cr_alice");
        await page.getByRole("button", { name: de("ledger.apply") }).click();
      },
      (params) => params.get("creator") === "cr_alice",
    );
    await stillGerman(journey, "ledger filtered", de("ledger.title"));
    await fetched(journey, /^\/app\/commissions\/export$/, () =>
      page.getByRole("button", { name: de("ledger.export") }).click(),
    );
    await stillGerman(journey, "ledger CSV", de("ledger.title"));
    await navigated(journey, `/app/orders/${seeded.contestedOrder}`, () =>
      page.locator(`a[href^="/app/orders/${seeded.contestedOrder}"]`).first().click(),
    );
    // Polaris draws its own radio over the input, which it hides: the label is what is clicked.
    await page.getByText(de("order.contest.creditNone"), { exact: true }).click();
    expect(await page.getByRole("radio", { name: de("order.contest.creditNone") }).isChecked()).toBe(true);
    await sent(journey, () => page.getByRole("button", { name: de("order.contest.submit") }).click());
    await stillGerman(journey, "contest decided", de("order.title", { name: "#1007" }));

    // Codes: filtered, its CSV, and a code switched off (a fetcher, behind a confirmation).
    await navigated(journey, "/app/codes", () => navLink(page, "codes").click());
    await navigated(
      journey,
      "/app/codes",
      async () => {
        await page.getByLabel(de("codes.search")).fill("LEAKED");
        await page.getByRole("button", { name: de("codes.apply") }).click();
      },
      (params) => params.get("code") === "LEAKED",
    );
    await stillGerman(journey, "codes filtered", de("codes.title"));
    await fetched(journey, /^\/app\/codes\/export$/, () =>
      page.getByRole("button", { name: de("codes.export") }).click(),
    );
    await page.getByRole("button", { name: de("codes.switchOffLabel", { code: "LEAKED20" }) }).click();
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("codes.confirmAction"), exact: true })
        .click(),
    );
    await page.locator("tr", { hasText: "LEAKED20" }).getByText(de("codes.switchedOff"), { exact: true }).waitFor();
    await stillGerman(journey, "code switched off", de("codes.title"));

    // Creators: searched (a GET form), a profile saved (a fetcher), the suspected creator
    // reversed and the reversal undone, and back to the list.
    await navigated(journey, "/app/creators", () => navLink(page, "creators").click());
    await page.getByRole("button", { name: de("creators.editFor", { creator: "cr_alice" }) }).click();
    await page.getByRole("dialog").getByLabel(de("creators.profileName")).fill("Alice");
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("creators.profileSave") })
        .click(),
    );
    await page.getByText(de("creators.profileSaved", { creator: "cr_alice" })).waitFor();
    await stillGerman(journey, "creator profile saved", de("creators.title"));
    const suspected = seeded.suspectedCreator;
    await navigated(
      journey,
      "/app/creators",
      async () => {
        await page.getByLabel(de("creators.creator")).fill(suspected);
        await page.getByRole("button", { name: de("creators.apply") }).click();
      },
      (params) => params.get("creator") === suspected,
    );
    const creatorHeading = de("creators.creatorTitle", { creator: suspected });
    await stillGerman(journey, "creator searched", creatorHeading);
    const standing = page.locator("#creator-standing");
    await standing.getByRole("button", { name: de("creators.decision.kind.reverse") }).click();
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("creators.decision.kind.reverse") })
        .click(),
    );
    await stillGerman(journey, "creator reversed", creatorHeading);
    await standing.getByRole("button", { name: de("creators.decision.undo") }).click();
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("creators.decision.undo") })
        .click(),
    );
    await stillGerman(journey, "reversal undone", creatorHeading);
    await navigated(journey, "/app/creators", () =>
      page.getByRole("link", { name: de("creators.backToCreators") }).click(),
    );
    await stillGerman(journey, "back to every creator", de("creators.title"));

    // Payouts: a PayPal run (refused: no account), a payout recorded and voided, its CSV, the
    // schedule saved, paused and resumed, the default method saved, the PayPal account form.
    await navigated(journey, "/app/payouts", () => navLink(page, "payouts").click());
    const alice = () => page.getByRole("checkbox", { name: dePattern("payouts.choose", { creator: "cr_alice" }) });
    await alice().check();
    await sent(journey, () => page.getByRole("button", { name: de("payouts.run.send") }).click());
    await stillGerman(journey, "PayPal run", de("payouts.title"));
    await alice().check();
    await page.getByLabel(de("payouts.reference")).fill("Überweisung 7");
    await page.getByRole("button", { name: de("payouts.review") }).click();
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("payouts.confirmSubmit") })
        .click(),
    );
    await stillGerman(journey, "payout recorded", de("payouts.title"));
    await fetched(journey, /^\/app\/payouts\/[^/]+\/export$/, () =>
      page
        .getByRole("button", { name: de("payouts.export") })
        .first()
        .click(),
    );
    await page
      .getByRole("button", { name: de("payouts.void") })
      .first()
      .click();
    await page.getByRole("dialog").getByLabel(de("payouts.voidReason")).fill("Doppelt erfasst");
    await sent(journey, () =>
      page
        .getByRole("dialog")
        .getByRole("button", { name: de("payouts.voidSubmit") })
        .click(),
    );
    await stillGerman(journey, "payout voided", de("payouts.title"));
    await page.getByRole("checkbox", { name: de("payouts.schedule.enabled") }).check();
    await sent(journey, () => page.getByRole("button", { name: de("payouts.schedule.save") }).click());
    await page.getByText(de("payouts.schedule.saved")).waitFor();
    await stillGerman(journey, "schedule saved", de("payouts.title"));
    await sent(journey, () => page.getByRole("button", { name: de("payouts.schedule.pause") }).click());
    await stillGerman(journey, "schedule paused", de("payouts.title"));
    await sent(journey, () => page.getByRole("button", { name: de("payouts.schedule.resume") }).click());
    await stillGerman(journey, "schedule resumed", de("payouts.title"));
    await sent(journey, () =>
      page
        .getByRole("button", { name: new RegExp(`^${de("payouts.methods.save")}: `) })
        .first()
        .click(),
    );
    await stillGerman(journey, "payout method saved", de("payouts.title"));
    await sent(journey, () => page.getByRole("button", { name: de("payouts.paypal.save") }).click());
    await stillGerman(journey, "PayPal account form", de("payouts.title"));

    // Settings: the connection tested (a fetcher) and the settings saved.
    await navigated(journey, "/app/settings", () => navLink(page, "settings").click());
    await sent(journey, () => page.getByRole("button", { name: de("settings.testConnection") }).click());
    await stillGerman(journey, "connection tested", de("settings.title"));
    await sent(journey, () =>
      page
        .getByTestId("settings-form")
        .getByRole("button", { name: de("settings.save"), exact: true })
        .click(),
    );
    await stillGerman(journey, "settings saved", de("settings.title"));

    await page.context().close();
  });
});
