import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Page, Response as PageResponse } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signSessionToken } from "../../sandbox/shopify";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { appBridgeCalls, saveBarShown, snap, type AppBridgeStubOptions } from "./embedded-admin";
import { useEmbeddedAdmin } from "./embedded-suite";

const prisma = databaseClient();

// The settings page in a real browser against the built app served by the app's production server: open it as
// Shopify admin does (embedded, with an id_token), save an API key, see it masked, and prove
// the raw key is in no HTML, JSON or client script the app serves. Shopify's side (token
// exchange, the storefront metafield) is the stand-in; App Bridge's CDN script cannot load
// offline, so it is replaced by a stub that does what App Bridge does for data requests:
// add `Authorization: Bearer <session token>` to the app's own fetches.

const ROOT = path.resolve(__dirname, "../..");
const SHOP = "e2e-admin.myshopify.com";
const API_KEY = "e2e-admin-api-key";
const API_SECRET = "e2e-admin-api-secret";

const suite = useEmbeddedAdmin({ shop: SHOP, apiKey: API_KEY, apiSecret: API_SECRET });
let rawKey = "";

/** How long no new answer must come before a page is closed. */
const QUIET_MS = 300;

/**
 * Everything the app answered a page: status line, headers and body, each read in full. A body
 * that cannot be read is kept as such and fails the test, so nothing goes unchecked unnoticed.
 */
class AppAnswers {
  readonly texts: string[] = [];
  readonly unread: string[] = [];
  private readonly reads: Promise<void>[] = [];
  /** The app's requests still in flight: an answer not in yet is waited for, not guessed at by a timer. */
  private readonly inFlight = new Set<unknown>();
  /** Set as the test closes a page: a request Remix starts in the background then is cut by design. */
  private closing = false;

  watch(page: Page): void {
    const ours = (url: string) => url.startsWith(suite.appUrl);
    page.on("request", (request) => {
      if (ours(request.url())) this.inFlight.add(request);
    });
    const done = (request: { url(): string }) => this.inFlight.delete(request);
    page.on("requestfinished", done);
    page.on("requestfailed", done);
    page.on("response", (response) => {
      if (ours(response.url())) this.reads.push(this.read(response));
    });
  }

  private async read(response: PageResponse): Promise<void> {
    let head = `${response.status()} ${response.url()}`;
    try {
      head += `\n${JSON.stringify(await response.allHeaders())}`;
      // A redirect has no body to read (the browser follows it); its headers are all it says.
      if (response.status() >= 300 && response.status() < 400) return void this.texts.push(head);
      this.texts.push(`${head}\n${await response.text()}`);
    } catch (error) {
      if (!this.closing) this.unread.push(`${head}\n${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Waits for every request to the app to be answered and every answer to be read, then for a
   * quiet spell with no new one; call before closing the page. Remix fetches route manifests in
   * the background (links it discovers), and an answer still coming when the page closes could
   * not be read once it was gone, however long a machine took to send it.
   */
  async settled(): Promise<void> {
    do {
      while (this.reads.length > 0) await Promise.all(this.reads.splice(0));
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    } while (this.reads.length > 0 || this.inFlight.size > 0);
  }

  /** Closes the page's context once every answer it was sent is read. */
  async close(page: Page): Promise<void> {
    await this.settled();
    this.closing = true;
    await page.context().close();
    this.closing = false;
  }
}

/** The page, everything the app answers it read into `answers`, and its errors logged in full. */
function openPage(pathname: string, answers = new AppAnswers(), stub: AppBridgeStubOptions = {}): Promise<Page> {
  return suite.openPage(pathname, {
    stub,
    watch(page) {
      page.on("pageerror", (error) =>
        console.error(`[browser] ${error.name}: ${error.message.slice(0, 600)} ${JSON.stringify(error).slice(0, 600)}`),
      );
      page.on("response", (response) => {
        if (response.status() >= 500) console.error(`[browser http] ${response.status()} ${response.url()}`);
      });
      page.on("console", (message) => {
        if (message.type() === "error") console.error(`[browser console] ${message.text().slice(0, 600)}`);
      });
      answers.watch(page);
    },
  });
}

function clientScripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? clientScripts(full) : name.endsWith(".js") ? [full] : [];
  });
}

beforeAll(() => {
  rawKey = suite.clicks.createApiKey();
});

describe("settings in the embedded admin", () => {
  it("saves a key, shows it only masked, and never serves it", { timeout: 120_000 }, async () => {
    const answers = new AppAnswers();
    const page = await openPage("/app/settings", answers);
    await page.getByLabel("Service base URL").fill(suite.clicks.url);
    await page.getByLabel("API key").fill(rawKey);
    await page.getByLabel("Affiliate tag parameter names").fill("tag, ref");

    await page.getByRole("button", { name: "Test connection" }).click();
    await expect
      .poll(() => page.getByTestId("connection-result").textContent(), { timeout: 15_000 })
      .toBe("Connected: the service accepted the key");

    // Unsaved changes show App Bridge's save bar; a save that succeeds hides it and says so in a toast.
    await expect.poll(() => saveBarShown(page, "settings-save-bar")).toBe(true);
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => (await appBridgeCalls(page)).filter(([name]) => name === "toast.show").map((call) => call[1]), {
        timeout: 15_000,
      })
      .toEqual(["Settings saved"]);
    await expect.poll(() => saveBarShown(page, "settings-save-bar")).toBe(false);
    expect(await page.getByLabel("API key").inputValue()).toBe("");
    await snap(page, "settings-saved");
    await page.getByText(`Current key: ••••${rawKey.slice(-4)}. Leave blank to keep the current key.`).waitFor();
    // The storefront config reached Shopify (the stand-in), so no warning banner.
    expect(await page.getByText("the storefront was not updated").count()).toBe(0);
    const installation = await fetch(`${suite.standin.url}/standin/app-installation?shop=${SHOP}`).then((r) =>
      r.json(),
    );
    const config = installation.metafields.find((m: { key: string }) => m.key === "storefront_config");
    expect(JSON.parse(config.value)).toEqual({ tagParams: ["tag", "ref"] });

    // A fresh load of every admin page: the key is in none of them.
    const expectations: Record<string, string> = {
      "/app/settings": `Current key: ••••${rawKey.slice(-4)}`,
      "/app": "Orders in the last 30 days",
      "/app/commissions": "No commission records match these filters.",
    };
    for (const [pathname, text] of Object.entries(expectations)) {
      const again = await openPage(pathname, answers);
      await again.getByText(text).first().waitFor();
      await again.waitForLoadState("networkidle");
      await answers.close(again);
    }
    await answers.close(page);

    expect(answers.unread).toEqual([]);
    // The four documents at least, and the data requests of the save and the test.
    expect(answers.texts.length).toBeGreaterThan(5);
    for (const text of answers.texts) expect(text.includes(rawKey), text.slice(0, 200)).toBe(false);
    expect(
      answers.texts.some(
        (text) => text.includes(`••••${rawKey.slice(-4)}`) || text.includes(`"apiKeyLast4":"${rawKey.slice(-4)}"`),
      ),
    ).toBe(true);

    // Every client script the app serves.
    const scripts = clientScripts(path.join(ROOT, "build/client"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const file of scripts) {
      const served = await fetch(
        `${suite.appUrl}/${path.relative(path.join(ROOT, "build/client"), file).split(path.sep).join("/")}`,
      );
      expect(served.status).toBe(200);
      expect((await served.text()).includes(rawKey)).toBe(false);
    }
  });

  it(
    "lists what to fix at the top, focused, each item leading to its field, and saves nothing",
    { timeout: 60_000 },
    async () => {
      const page = await openPage("/app/settings");
      await page.getByLabel("Commission rate").fill("250");
      await page.getByLabel("Hold period").fill("-3");
      await page.getByRole("button", { name: "Save" }).click();
      const banner = page.getByTestId("settings-errors");
      await banner.getByText("Nothing was saved. Correct the highlighted fields.").waitFor({ timeout: 15_000 });
      // Keyboard focus moved to the list of what is wrong.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid")))
        .toBe("settings-errors");
      expect(await banner.getByRole("link").allTextContents()).toEqual(["Commission rate", "Hold period"]);
      await banner.getByText("the rate is a percentage from 0 to 100", { exact: false }).waitFor();
      await banner.getByRole("link", { name: "Commission rate" }).click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("settings-field-commissionRate");
      await banner.getByRole("link", { name: "Hold period" }).press("Enter");
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("settings-field-holdDays");
      // Nothing was saved, so the changes are still unsaved and the save bar still shows.
      expect(await saveBarShown(page, "settings-save-bar")).toBe(true);
      expect((await appBridgeCalls(page)).some(([name]) => name === "toast.show")).toBe(false);
      await snap(page, "settings-invalid");
      await page.context().close();
    },
  );

  it("saves without App Bridge's save bar and toast, saying so on the page", { timeout: 60_000 }, async () => {
    const page = await openPage("/app/settings", undefined, { saveBar: false });
    await page.evaluate(() => {
      delete (window as unknown as { shopify: { toast?: unknown } }).shopify.toast;
    });
    await page.getByLabel("Tag added to hijacked orders").fill("hijack-seen");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Settings saved").waitFor({ timeout: 15_000 });
    expect(await page.locator("ui-save-bar").count()).toBe(0);
    await page.context().close();
  });

  it("gives no admin page to a session token signed with another secret", async () => {
    const forged = signSessionToken({ shop: SHOP, apiKey: API_KEY, secret: "someone-else", ttlSeconds: 600 });
    const host = Buffer.from(`admin.shopify.com/store/e2e-admin`).toString("base64url");
    // A browser's user agent: the library answers bots with 410 before looking at the token.
    const headers = { "user-agent": BROWSER_USER_AGENT };
    const response = await fetch(
      `${suite.appUrl}/app/settings?embedded=1&shop=${SHOP}&host=${host}&id_token=${forged}`,
      {
        redirect: "manual",
        headers,
      },
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/auth\/session-token/);
    const data = await fetch(`${suite.appUrl}/app/settings?_data=routes%2Fapp.settings`, {
      headers: { ...headers, authorization: `Bearer ${forged}` },
    });
    expect(data.status).toBe(401);
  });
});

describe("dashboard, order page and ledger in the browser", () => {
  it("changes the period, retries a failed order and exports the ledger", { timeout: 120_000 }, async () => {
    if (!(await prisma.shopSettings.findUnique({ where: { shop: SHOP } }))) {
      await saveSettings(SHOP, { clickServiceUrl: suite.clicks.url, apiKey: suite.clicks.createApiKey() });
    }
    const now = Date.now();
    const base = {
      shop: SHOP,
      orderCreatedAt: new Date(now - 3 * 86_400_000),
      createdAt: new Date(now - 3 * 86_400_000),
      orderFacts: "{}",
    };
    const failed = await prisma.verification.create({
      data: {
        ...base,
        orderId: "7001",
        orderGid: "gid://shopify/Order/7001",
        orderName: "#7001",
        outcome: "failed",
        reason: "gave up after 8 attempts",
        captureSource: "cart_attributes",
        clickId: "clk-7001",
        arrivedTag: "creator-a",
        deadlineAt: new Date(now + 30 * 60_000),
      },
    });
    const hijacked = await prisma.verification.create({
      data: {
        ...base,
        orderId: "7002",
        orderGid: "gid://shopify/Order/7002",
        orderName: "#7002",
        outcome: "hijacked",
        captureSource: "cart_attributes",
        clickId: "clk-7002",
        arrivedTag: "=cmd|' /C calc'!A0",
        expectedTag: "creator-b",
        creatorId: "cr_b",
      },
    });
    for (const { id } of [failed, hijacked]) {
      await prisma.job.create({
        data: { id: `job-${id}`, shop: SHOP, kind: "verify-order", subject: id, state: "done", runAt: base.createdAt },
      });
    }
    await prisma.commission.create({
      data: {
        shop: SHOP,
        verificationId: hijacked.id,
        orderId: "7002",
        orderName: "#7002",
        creatorId: "cr_b",
        expectedTag: "creator-b",
        arrivedTag: hijacked.arrivedTag!,
        orderValue: "80.00",
        currency: "EUR",
        rate: "10",
        amount: "8.00",
        amountMinor: 800n,
        redirected: true,
        createdAt: base.createdAt,
      },
    });

    const page = await openPage("/app");
    await page.getByText("Orders in the last 30 days").waitFor();
    // The money first: the commission redirected, in the merchant's locale.
    await page.getByText("€8.00").first().waitFor();
    await page
      .getByText("1 order could not be checked: the Click Verification Service did not answer in time.")
      .waitFor();
    await snap(page, "dashboard");
    // Period change is a client-side navigation: its data request carries the session token.
    await page.getByLabel("Period").selectOption("7");
    await page.waitForURL(/days=7/);
    await page.getByText("Orders in the last 7 days").waitFor();

    // The failed order's page, then Retry now.
    await page.locator("tr", { hasText: "#7001" }).getByRole("link", { name: "View" }).click();
    await page.getByRole("heading", { name: "Order #7001" }).first().waitFor();
    await page.getByText("gave up after 8 attempts").waitFor();
    await page.getByRole("button", { name: "Retry now" }).click();
    await page.getByText("The order is queued and will be verified within seconds.").waitFor();
    await snap(page, "order-retried");
    expect((await prisma.verification.findUniqueOrThrow({ where: { id: failed.id } })).outcome).toBeNull();
    expect(await prisma.job.findUniqueOrThrow({ where: { id: `job-${failed.id}` } })).toMatchObject({
      state: "queued",
      attempts: 0,
    });
    await page.context().close();

    // The ledger and its CSV, downloaded through the page's (token-carrying) fetch.
    const ledger = await openPage("/app/commissions");
    await ledger.getByText("€8.00 across 1 record").waitFor();
    await snap(ledger, "ledger");
    const [download] = await Promise.all([
      ledger.waitForEvent("download"),
      ledger.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    const csv = Buffer.concat(chunks).toString("utf8");
    expect(download.suggestedFilename()).toMatch(/^commissions-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(csv).toContain("#7002,7002,cr_b,,,creator-b,'=cmd|' /C calc'!A0,yes,80.00,EUR,10,8.00,pending");
    await ledger.context().close();
  });
});
