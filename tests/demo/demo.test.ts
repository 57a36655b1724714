import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onServer } from "../../sandbox/postgresql";
import { signSessionToken } from "../../sandbox/shopify";
import { BROWSER_USER_AGENT } from "../../sandbox/storefront/chromium";
import { postgresqlMissing } from "../support/postgresql-cluster";
import { runDemo } from "../support/run-demo";
import { suitePostgresql } from "../support/suite-postgresql";

// Runs `npm run demo` as a user would, as a separate process, and checks its report and its
// --serve mode. A scenario written here, not the built-in one, so nothing can be tuned to it.

const dir = mkdtempSync(path.join(tmpdir(), "demo-test-"));

const scenario = {
  settings: { commissionRate: "12.5", hijackTag: "tag-stolen", tagParams: ["aff", "tag"], holdDays: 0 },
  clicks: [
    { ref: "k1", expectedTag: "zoe-9", creatorId: "cr_zoe", ageMinutes: 30 },
    // 45 minutes: a quarter of an hour to spare on a loaded machine, still inside the hour.
    { ref: "k2", expectedTag: "yan-4", creatorId: "cr_yan", ageMinutes: 45 },
    { ref: "k3", expectedTag: "xia-2", creatorId: "cr_xia", ageMinutes: 61 },
    { ref: "k4", expectedTag: "wes-3", creatorId: "cr_wes", ageMinutes: 240 },
    { ref: "k5", expectedTag: "val-8", creatorId: "cr_val", ageMinutes: 2 },
    { ref: "k6", expectedTag: "uma-1", creatorId: "cr_uma", ageMinutes: 7 },
    { ref: "k7", expectedTag: "tom-6", creatorId: "cr_tom", ageMinutes: 3 },
    { ref: "k8", expectedTag: "sam-5", creatorId: "cr_sam", ageMinutes: 200 },
    { ref: "k9", expectedTag: "rex-2", creatorId: "cr_rex", ageMinutes: 4 },
  ],
  orders: [
    {
      ref: "a",
      click: "k1",
      arrivedTag: "cashback-1",
      subtotal: "33.33",
      currency: "EUR",
      deliveries: 4,
      refunds: [{ subtotal: "11.11" }],
      discountCodes: ["LEAK10"],
    },
    {
      ref: "b",
      click: "k2",
      arrivedTag: "yan-4",
      capture: "landing_site",
      subtotal: "10.05",
      deliveries: 2,
      discountCodes: ["LEAK10", { code: "FRIEND", amount: "1.00" }],
    },
    { ref: "c", click: "k3", arrivedTag: "xia-2", subtotal: "50.00" },
    { ref: "d", clickId: "clk_made_up", arrivedTag: null, subtotal: "1.00" },
    { ref: "e", capture: "none", subtotal: "5.00", discountCodes: ["leak10"] },
    { ref: "f", click: "k4", arrivedTag: "wes-3", landing: true, subtotal: "20.00" },
    {
      ref: "g",
      click: "k5",
      arrivedTag: "val-8",
      landing: true,
      tamper: { click: "k1", arrivedTag: "zoe-9" },
      subtotal: "8.00",
    },
    { ref: "h", click: "k1", arrivedTag: "zoe-9", subtotal: "20.00", cancel: true, deliveries: 2 },
    // The embed off: only the web pixel saw the click, and the coupon redirect's swapped tag.
    { ref: "i", click: "k6", arrivedTag: "coupon-3", landing: true, embed: false, subtotal: "16.00" },
    // Neither the embed nor the pixel ran: only Shopify's record of the visit (its landing page) reached the order.
    { ref: "j", click: "k6", arrivedTag: "uma-1", landing: true, embed: false, pixel: false, subtotal: "9.00" },
    // A script rewrote the cart to another valid click and reported it: the witnesses disagree.
    {
      ref: "k",
      click: "k7",
      arrivedTag: "tom-6",
      landing: true,
      tamper: { click: "k9", arrivedTag: "rex-2", touch: true },
      subtotal: "40.00",
    },
    // The embed off, ordered over three hours after the click: decided from the pixel's landing lookup.
    { ref: "l", click: "k8", arrivedTag: "sam-5", landing: true, embed: false, subtotal: "24.00" },
    // The pixel blocked, the embed on.
    { ref: "m", click: "k9", arrivedTag: "rex-2", landing: true, pixel: false, subtotal: "8.00" },
    // Edited down, then up, then partly refunded, each delivered twice (decision 045).
    {
      ref: "n",
      click: "k5",
      arrivedTag: "val-8",
      subtotal: "100.00",
      deliveries: 2,
      edits: [{ subtotal: "80.00" }, { subtotal: "90.10" }],
      refunds: [{ subtotal: "10.00" }],
    },
  ],
  // Switched off through the admin's Codes page once the orders are verified.
  deactivate: ["LEAK10"],
};

describe("npm run demo", { timeout: 180_000 }, () => {
  it("plays a scenario file and reports tags read back from Shopify and exact commissions", async () => {
    const scenarioFile = path.join(dir, "scenario.json");
    const reportFile = path.join(dir, "report.json");
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    const { code, stdout, stderr } = await runDemo(["--scenario", scenarioFile, "--report", reportFile]);
    expect(stderr).not.toMatch(/demo failed/);
    expect(code).toBe(0);
    // The storefront step ran the real extension script (CI installs Chromium).
    expect(stdout).toMatch(/Storefront step: real Chromium with the click-capture extension/);
    // The fresh install connected the web pixel with no merchant step.
    expect(stdout).toMatch(
      /Web pixel connected by the app at install \(webPixelCreate, gid:\/\/shopify\/WebPixel\/\d+\)/,
    );
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as {
      database: string;
      orders: {
        ref: string;
        outcome: string;
        source: string | null;
        tampered: boolean;
        witness: string | null;
        tags: string[];
        discountCodes: { code: string; amount: string }[];
        commission: Record<string, unknown> | null;
      }[];
      codes: Record<string, { orders: number; hijacked: number; deactivated: boolean }>;
      summary: Record<string, unknown>;
    };
    expect(report.database).toBe("sqlite");
    const byRef = Object.fromEntries(report.orders.map((order) => [order.ref, order]));
    expect(byRef.a).toMatchObject({
      outcome: "hijacked",
      tags: ["tag-stolen"],
      commission: {
        creatorId: "cr_zoe",
        expectedTag: "zoe-9",
        arrivedTag: "cashback-1",
        // 4.17 credited (33.33 x 12.5%), then 11.11 of the 33.33 refunded: net 2.78.
        amount: "2.78",
        currency: "EUR",
        redirected: true,
        status: "approved",
      },
    });
    expect(byRef.b).toMatchObject({
      outcome: "matched",
      tags: [],
      commission: { creatorId: "cr_yan", amount: "1.26", currency: "USD", redirected: false, status: "approved" },
    });
    expect(byRef.h).toMatchObject({
      outcome: "matched",
      commission: { creatorId: "cr_zoe", amount: "0.00", currency: "USD", status: "reversed" },
    });
    expect(byRef.c).toMatchObject({ outcome: "expired", commission: null });
    expect(byRef.d).toMatchObject({ outcome: "expired", commission: null });
    expect(byRef.e).toMatchObject({
      outcome: "unattributed",
      tags: [],
      commission: null,
      source: null,
      tampered: false,
    });
    expect(byRef.a).toMatchObject({ source: "service", tampered: false });
    // Landed while fresh, ordered four hours after the click: decided from the landing record.
    expect(byRef.f).toMatchObject({
      outcome: "matched",
      source: "landing",
      tampered: false,
      commission: { creatorId: "cr_wes", amount: "2.50", redirected: false },
    });
    // A script rewrote the cart to another creator's click and tag: the server's record wins.
    expect(byRef.g).toMatchObject({
      outcome: "matched",
      source: "service",
      tampered: true,
      commission: { creatorId: "cr_val", expectedTag: "val-8", amount: "1.00" },
    });
    // The codes each order carried as the app stored them: 10% of the subtotal unless given, and
    // the commissions above are unchanged by them (the basis is the subtotal after discounts).
    expect(byRef.a!.discountCodes).toEqual([{ code: "LEAK10", amount: "3.33" }]);
    expect(byRef.b!.discountCodes).toEqual([
      { code: "FRIEND", amount: "1.00" },
      { code: "LEAK10", amount: "1.01" },
    ]);
    expect(byRef.c!.discountCodes).toEqual([]);
    // "leak10" is the same code to Shopify: counted with LEAK10, and switched off with it.
    expect(byRef.e!.discountCodes).toEqual([{ code: "leak10", amount: "0.50" }]);
    expect(report.codes).toEqual({
      LEAK10: { orders: 3, hijacked: 1, deactivated: true },
      FRIEND: { orders: 1, hijacked: 0, deactivated: false },
    });
    // Where the click that decided each order came from.
    expect(Object.fromEntries(report.orders.map((order) => [order.ref, order.witness]))).toEqual({
      a: "cart_attributes",
      b: "landing_site",
      c: "cart_attributes",
      d: "cart_attributes",
      e: null,
      f: "landing",
      g: "landing",
      h: "cart_attributes",
      i: "pixel",
      j: "landing_site",
      k: "landing",
      l: "pixel",
      m: "landing",
      n: "cart_attributes",
    });
    expect(byRef.i).toMatchObject({
      outcome: "hijacked",
      tags: ["tag-stolen"],
      commission: {
        creatorId: "cr_uma",
        expectedTag: "uma-1",
        arrivedTag: "coupon-3",
        amount: "2.00",
        redirected: true,
      },
    });
    // The landing page Shopify recorded carried the creator's link: 12.5% of 9.00, rounded half-up.
    expect(byRef.j).toMatchObject({
      outcome: "matched",
      tampered: false,
      commission: { creatorId: "cr_uma", expectedTag: "uma-1", arrivedTag: "uma-1", amount: "1.13" },
    });
    // The first click keeps the credit; the second creator's click is evidence, never a silent match.
    expect(byRef.k).toMatchObject({
      outcome: "matched",
      tampered: true,
      commission: { creatorId: "cr_tom", expectedTag: "tom-6", amount: "5.00" },
    });
    expect(byRef.l).toMatchObject({
      outcome: "matched",
      source: "landing",
      commission: { creatorId: "cr_sam", amount: "3.00", redirected: false },
    });
    expect(byRef.m).toMatchObject({ outcome: "matched", commission: { creatorId: "cr_rex", amount: "1.00" } });
    // 12.5% of (90.10 edited - 10.00 refunded) = 10.0125, half-up 10.01; approved (a hold of 0).
    expect(byRef.n).toMatchObject({
      outcome: "matched",
      commission: { creatorId: "cr_val", amount: "10.01", status: "approved" },
    });
    expect(report.summary).toMatchObject({
      orders: 14,
      deliveries: 20,
      hijackTagged: 2,
      commissions: 11,
      statuses: { approved: 10, reversed: 1 },
      savedFromExpiry: 2,
      tamperedCarts: 2,
      witnesses: { cart_attributes: 5, landing_site: 2, landing: 4, pixel: 2, none: 1 },
    });
  });

  it("refuses a bad scenario with a message naming the field", async () => {
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        clicks: [{ ref: "x", expectedTag: "t" }],
        orders: [
          { ref: "o", click: "nope", subtotal: 12, discountCodes: [{ code: "A", amount: "1,00" }] },
          { ref: "p", capture: "none", embed: false },
        ],
      }),
    );
    const { code, stderr } = await runDemo(["--scenario", bad]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/clicks\.0\.creatorId/);
    expect(stderr).toMatch(/orders\.0\.subtotal/);
    expect(stderr).toMatch(/orders\.1\.embed: `embed` applies with `landing: true`/);
    expect(stderr).toMatch(/orders\.0\.discountCodes\.0/);

    // A code to switch off that no order carries: Shopify would not know it.
    writeFileSync(bad, JSON.stringify({ orders: [{ ref: "o", discountCodes: ["A"] }], deactivate: ["NONE"] }));
    const unknown = await runDemo(["--scenario", bad]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/deactivate\.0: names code "NONE", which no order of the scenario carries/);
    // An edit takes only the subtotal after it: another field, or a wrong amount, is named.
    writeFileSync(bad, JSON.stringify({ orders: [{ ref: "o", edits: [{ total: "80.00" }, { subtotal: "eighty" }] }] }));
    const edits = await runDemo(["--scenario", bad]);
    expect(edits.code).toBe(2);
    expect(edits.stderr).toMatch(/orders\.0\.edits\.0: Unrecognized key: "total"/);
    expect(edits.stderr).toMatch(/orders\.0\.edits\.1\.subtotal: must be a decimal amount/);
  });

  it("--serve prints DEMO_READY and keeps the admin serving until SIGTERM", async () => {
    let ready: Record<string, string> | undefined;
    let pages: { dashboard: number; settings: string; forged: number; definitions: unknown } | undefined;
    const { code } = await runDemo(["--serve"], (line, stop) => {
      if (!line.startsWith("DEMO_READY ")) return;
      ready = JSON.parse(line.slice("DEMO_READY ".length)) as Record<string, string>;
      const info = ready;
      const open = (secret: string, route: string) =>
        fetch(`${info.appUrl}${route}?_data=${encodeURIComponent(`routes/${route.slice(1).replace(/\//g, ".")}`)}`, {
          headers: {
            authorization: `Bearer ${signSessionToken({ shop: info.shop!, apiKey: info.apiKey!, secret })}`,
            "user-agent": BROWSER_USER_AGENT,
          },
        });
      void (async () => {
        const dashboard = await open(info.apiSecret!, "/app");
        const settings = await open(info.apiSecret!, "/app/settings");
        const forged = await open("another-secret", "/app");
        const definitions = await (
          await fetch(`${info.shopifyStandinUrl}/standin/metafield-definitions?shop=${info.shop}`)
        ).json();
        pages = { dashboard: dashboard.status, settings: await settings.text(), forged: forged.status, definitions };
        stop();
      })();
    });
    expect(ready).toMatchObject({
      appUrl: expect.stringMatching(/^http:/),
      shop: "demo-shop.myshopify.com",
      clickServiceApiKey: expect.any(String),
      shopifyStandinUrl: expect.any(String),
    });
    expect(pages?.dashboard).toBe(200);
    expect(pages?.settings).toContain("clickServiceUrl");
    expect(pages?.settings).not.toContain(ready!.clickServiceApiKey);
    expect(pages?.forged).toBe(401);
    // Installing the shop defined the evidence metafield so merchants can see it on orders.
    expect(pages?.definitions).toMatchObject({
      definitions: [expect.objectContaining({ key: "hijack_evidence", ownerType: "ORDER" })],
    });
    expect(code).toBe(143); // stopped by the signal, after cleaning up
  });
});

// Without PostgreSQL this says why (and vitest.config.ts already refuses to run in CI without it).
const missing = postgresqlMissing();
describe.skipIf(missing)(
  `npm run demo on PostgreSQL${missing ? ` (skipped: ${missing})` : ""}`,
  { timeout: 180_000 },
  () => {
    const serverUrl = suitePostgresql();

    // Other suites may share a TEST_POSTGRES_URL server: only the demo's own databases count.
    const demoDatabases = () =>
      onServer(serverUrl(), async (client) =>
        (
          await client.query<{ datname: string }>(
            "SELECT datname FROM pg_database WHERE starts_with(datname, 'tag_guard_demo_') ORDER BY 1",
          )
        ).rows.map((row) => row.datname),
      );

    it("plays the scenario on a database of its own on the server, reports it, and drops it", async () => {
      const scenarioFile = path.join(dir, "scenario-postgresql.json");
      const reportFile = path.join(dir, "report-postgresql.json");
      writeFileSync(scenarioFile, JSON.stringify(scenario));
      const before = await demoDatabases();
      const { code, stderr } = await runDemo(["--scenario", scenarioFile, "--report", reportFile], undefined, {
        DATABASE_URL: serverUrl(),
      });
      expect(stderr).not.toMatch(/demo failed/);
      expect(code).toBe(0);
      const report = JSON.parse(readFileSync(reportFile, "utf8")) as {
        database: string;
        orders: { ref: string; outcome: string; witness: string | null; commission: Record<string, unknown> | null }[];
      };
      expect(report.database).toBe("postgresql");
      expect(Object.fromEntries(report.orders.map((order) => [order.ref, [order.outcome, order.witness]]))).toEqual({
        a: ["hijacked", "cart_attributes"],
        b: ["matched", "landing_site"],
        c: ["expired", "cart_attributes"],
        d: ["expired", "cart_attributes"],
        e: ["unattributed", null],
        f: ["matched", "landing"],
        g: ["matched", "landing"],
        h: ["matched", "cart_attributes"],
        i: ["hijacked", "pixel"],
        j: ["matched", "landing_site"],
        k: ["matched", "landing"],
        l: ["matched", "pixel"],
        m: ["matched", "landing"],
        n: ["matched", "cart_attributes"],
      });
      expect(report.orders.find((order) => order.ref === "k")?.commission).toMatchObject({ creatorId: "cr_tom" });
      // Its edits and refund on PostgreSQL as on SQLite: 12.5% of (90.10 - 10.00), half-up.
      expect(report.orders.find((order) => order.ref === "n")?.commission).toMatchObject({
        creatorId: "cr_val",
        amount: "10.01",
      });
      expect(report.orders.find((order) => order.ref === "a")?.commission).toMatchObject({
        creatorId: "cr_zoe",
        amount: "2.78",
        redirected: true,
        status: "approved",
      });
      expect(report.orders.find((order) => order.ref === "h")?.commission).toMatchObject({ status: "reversed" });
      expect(await demoDatabases()).toEqual(before);
    });
  },
);
