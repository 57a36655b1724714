import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as settingsRoute from "../../app/routes/app.settings";
import de from "../../app/i18n/locales/de.json";
import { runInRequestLocale } from "../../app/i18n/translators.server";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { listen } from "../../sandbox/listen";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { adminRequest, call, resetTables, seedVerification, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

// The settings page through its real loader and action: validation inline and nothing saved,
// the key write-only (never in any response), requeue after a new key, the storefront push
// (to the Shopify stand-in) with a failure shown as a warning, and Test connection against
// the sandbox Click Verification Service.

const SHOP = "settings-test.myshopify.com";
let clicks: RunningClickService;
let standin: ShopifyStandin;
let routing: StandinRouting;
let validKey: string;
// Another server on this machine, as an attacker's would be: it records what reaches it and
// answers with a body that must never be shown to the merchant.
let elsewhere: { url: string; seen: IncomingHttpHeaders[]; status: number; close(): Promise<void> };

beforeAll(async () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(elsewhere.status, { "content-type": "text/plain" });
    res.end("internal admin console: db password hunter2");
  });
  const { url } = await listen(server);
  elsewhere = { url, seen, status: 404, close: () => new Promise((resolve) => server.close(() => resolve())) };
  clicks = await startClickService();
  validKey = clicks.createApiKey();
  standin = await startShopifyStandin();
  routing = routeShopifyTrafficTo(standin.url);
  const token = standin.issueToken(SHOP, { scope: ["read_orders", "write_orders"] });
  await storeOfflineSession(SHOP, token.token);
});

afterAll(async () => {
  await elsewhere?.close();
  await routing?.restore();
  await standin?.close();
  await clicks?.close();
});

beforeEach(async () => {
  await resetTables();
  elsewhere.seen.length = 0;
  elsewhere.status = 404;
});

function form(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    intent: "save",
    clickServiceUrl: clicks.url,
    apiKey: validKey,
    tagParams: "tag, ref  utm_tag",
    hijackTag: "affiliate-hijacked",
    commissionRate: "12.5",
    orderValueBasis: "subtotal_before_discounts",
    autoVerify: "true",
    ...overrides,
  };
}

async function save(fields: Record<string, string>) {
  const response = await call(settingsRoute.action as never, adminRequest("/app/settings", SHOP, { form: fields }));
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

describe("settings loader and save", () => {
  it("shows no settings before the first save", async () => {
    const response = await call(settingsRoute.loader as never, adminRequest("/app/settings", SHOP));
    expect(await response.json()).toEqual({ settings: null, keyRejectedAt: null });
  });

  it("saves valid settings, returns the key only masked, and publishes the tag parameters", async () => {
    const { status, text, body } = await save(form());
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.settings.apiKeyLast4).toBe(validKey.slice(-4));
    expect(body.settings.tagParams).toEqual(["tag", "ref", "utm_tag"]);
    expect(body.settings.orderValueBasis).toBe("subtotal_before_discounts");
    expect(body.storefront).toMatchObject({ ok: true });
    expect(text).not.toContain(validKey);

    const installation = await fetch(`${standin.url}/standin/app-installation?shop=${SHOP}`).then((r) => r.json());
    const config = installation.metafields.find((m: { key: string }) => m.key === "storefront_config");
    expect(JSON.parse(config.value)).toEqual({ tagParams: ["tag", "ref", "utm_tag"] });

    const loaded = await call(settingsRoute.loader as never, adminRequest("/app/settings", SHOP));
    const loadedText = await loaded.text();
    expect(loadedText).not.toContain(validKey);
    expect(JSON.parse(loadedText).settings.apiKeyLast4).toBe(validKey.slice(-4));
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    expect(row.apiKeySealed).not.toContain(validKey);
  });

  it("keeps the stored key when the key field is left blank", async () => {
    await save(form());
    const before = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    const { body } = await save(form({ apiKey: "", hijackTag: "stolen-commission" }));
    expect(body.ok).toBe(true);
    const after = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    expect(after.apiKeySealed).toBe(before.apiKeySealed);
    expect(after.hijackTag).toBe("stolen-commission");
  });

  it("reads the rates as a German merchant types them, and refuses one that reads two ways", async () => {
    const inGerman = <T>(work: () => Promise<T>) => runInRequestLocale("/app/settings?locale=de", work);
    const { body } = await inGerman(() => save(form({ commissionRate: "7,5 %", creatorRates: "cr_ana = 12,25" })));
    expect(body.ok).toBe(true);
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    expect([row.commissionRate, JSON.parse(row.creatorRates)]).toEqual(["7.5", { cr_ana: "12.25" }]);

    const refused = await inGerman(() => save(form({ commissionRate: "1.500" })));
    expect(refused.body).toEqual({
      intent: "save",
      ok: false,
      errors: {
        commissionRate: de.numbers.ambiguous
          .replace("{typed}", "1.500")
          .replace("{thousands}", "1500")
          .replace("{fraction}", "1,500"),
      },
    });
    expect((await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } })).commissionRate).toBe("7.5");
  });

  it("returns inline errors per field and saves nothing", async () => {
    const { status, body, text } = await save(
      form({
        clickServiceUrl: "not a url",
        commissionRate: "150",
        hijackTag: "a,b",
        tagParams: "lb_click",
        apiKey: "typo-key-0000000",
      }),
    );
    expect(status).toBe(400);
    expect(body.ok).toBe(false);
    expect(Object.keys(body.errors).sort()).toEqual(["clickServiceUrl", "commissionRate", "hijackTag", "tagParams"]);
    expect(text).not.toContain("typo-key-0000000");
    expect(await prisma.shopSettings.count()).toBe(0);
  });

  it("asks for a key on the first save", async () => {
    const { body } = await save(form({ apiKey: "" }));
    expect(body.ok).toBe(false);
    expect(body.errors.apiKey).toMatch(/API key/);
  });

  it("requeues orders parked for a rejected key when a new key is saved, and only then", async () => {
    await save(form());
    const alive = await seedVerification({
      shop: SHOP,
      outcome: "rejected",
      deadlineAt: new Date(Date.now() + 30 * 60_000),
    });
    // Its click has died: it goes again too, and the worker settles it (from a landing record,
    // or as expired) instead of leaving it parked for ever.
    const dead = await seedVerification({ shop: SHOP, outcome: "rejected", deadlineAt: new Date(Date.now() - 60_000) });
    const jobState = async (id: string) =>
      (await prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "verify-order", subject: id } } })).state;

    const blank = await save(form({ apiKey: "" }));
    expect(blank.body.requeued).toBe(0);
    expect(await jobState(alive.id)).toBe("parked");

    const fresh = await save(form({ apiKey: clicks.createApiKey() }));
    expect(fresh.body.requeued).toBe(2);
    expect(await jobState(alive.id)).toBe("queued");
    expect(await jobState(dead.id)).toBe("queued");
  });

  it("refuses a new service origin with the key left blank, inline, and saves nothing", async () => {
    await save(form());
    const before = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    const { status, body, text } = await save(form({ clickServiceUrl: elsewhere.url, apiKey: "" }));
    expect(status).toBe(400);
    expect(body.errors).toEqual({
      apiKey: `enter the API key again: the stored key is only sent to ${new URL(clicks.url).origin}, where it was saved`,
    });
    expect(text).not.toContain(validKey);
    expect(await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } })).toEqual(before);
  });

  it("keeps the key for another path on the same origin, and takes a new origin with the key typed again", async () => {
    await save(form());
    expect((await save(form({ clickServiceUrl: `${clicks.url}/`, apiKey: "" }))).body.ok).toBe(true);
    const moved = await save(form({ clickServiceUrl: elsewhere.url, apiKey: "sk_for_elsewhere_1234" }));
    expect(moved.body.ok).toBe(true);
    const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
    expect(row.apiKeyOrigin).toBe(new URL(elsewhere.url).origin);
  });

  it("refuses a service URL on a private or link-local address", async () => {
    for (const clickServiceUrl of ["http://169.254.169.254/latest", "https://10.0.0.8", "http://[fd00:ec2::254]"]) {
      const { status, body } = await save(form({ clickServiceUrl }));
      expect(status, clickServiceUrl).toBe(400);
      expect(body.errors.clickServiceUrl).toMatch(/local or private network address/);
    }
    expect(await prisma.shopSettings.count()).toBe(0);
  });

  it("saves and warns (without failing) when the storefront cannot be updated", async () => {
    standin.clearRequests();
    standin.faults({ serverError: 10 });
    const { status, body } = await save(form({ tagParams: "not_published" }));
    standin.faults({ serverError: 0 });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.storefront).toEqual({ ok: false, message: "server: HTTP 500" });
    // Every request of the push got the fault (the save tries twice), and none reached the store.
    const pushed = standin.requests();
    expect(pushed.length).toBeGreaterThan(0);
    expect(pushed.map((request) => [request.status, request.fault])).toEqual(pushed.map(() => [500, "server-error"]));
    const installation = await fetch(`${standin.url}/standin/app-installation?shop=${SHOP}`).then((r) => r.json());
    const config = installation.metafields.find((m: { key: string }) => m.key === "storefront_config");
    expect(config?.value ?? "").not.toContain("not_published");
    expect(await prisma.shopSettings.count()).toBe(1);
  });
});

describe("test connection", () => {
  async function test(fields: Record<string, string>) {
    const response = await call(
      settingsRoute.action as never,
      adminRequest("/app/settings", SHOP, { form: { intent: "test", ...fields } }),
    );
    const text = await response.text();
    return { text, body: JSON.parse(text) };
  }

  it("reports a key the service accepts as connected", async () => {
    const { body, text } = await test({ clickServiceUrl: clicks.url, apiKey: validKey });
    expect(body.result).toEqual({ status: "connected" });
    expect(text).not.toContain(validKey);
  });

  it("reports a key the service rejects", async () => {
    const { body, text } = await test({ clickServiceUrl: clicks.url, apiKey: "sk_wrong_key_123456" });
    expect(body.result).toEqual({ status: "rejected" });
    expect(text).not.toContain("sk_wrong_key_123456");
  });

  it("uses the stored key when the field is blank", async () => {
    await save(form());
    const { body } = await test({ clickServiceUrl: "", apiKey: "" });
    expect(body.result).toEqual({ status: "connected" });
  });

  it("reports a service it cannot reach, with the reason and without the key", async () => {
    const { body, text } = await test({ clickServiceUrl: "http://127.0.0.1:9", apiKey: validKey });
    expect(body.result).toEqual({ status: "unreachable", message: "the connection was refused" });
    expect(text).not.toContain(validKey);
  });

  it("never sends the stored key to a service URL on another origin", async () => {
    await save(form());
    const { body, text } = await test({ clickServiceUrl: elsewhere.url, apiKey: "" });
    expect(body.result).toEqual({ status: "incomplete", field: "apiKey", reason: "new-origin" });
    expect(elsewhere.seen).toEqual([]);
    expect(text).not.toContain(validKey);
    // Another path of the origin it was saved for is the same service: the key goes there.
    expect((await test({ clickServiceUrl: `${clicks.url}/`, apiKey: "" })).body.result).toEqual({
      status: "connected",
    });
  });

  it("refuses private and metadata addresses without connecting", async () => {
    for (const clickServiceUrl of ["http://169.254.169.254", "http://192.168.1.1:8080", "http://[::ffff:10.0.0.1]"]) {
      const { body } = await test({ clickServiceUrl, apiKey: validKey });
      expect(body.result, clickServiceUrl).toEqual({
        status: "unreachable",
        message: "the service URL points to a local or private network address, which the app never calls",
      });
    }
  });

  it("shows the status of an unexpected answer in its own words, never the answer's body", async () => {
    for (const status of [403, 500, 302, 400]) {
      elsewhere.status = status;
      const { body, text } = await test({ clickServiceUrl: elsewhere.url, apiKey: validKey });
      expect(body.result.status).toBe("unreachable");
      expect(body.result.message).toMatch(new RegExp(`^the service answered HTTP ${status}: `));
      expect(text).not.toMatch(/internal|hunter2/);
    }
  });

  it("answers a URL that Save would refuse with the same message, without connecting", async () => {
    const { body } = await test({ clickServiceUrl: `http://user:pw@${new URL(elsewhere.url).host}`, apiKey: validKey });
    expect(body.result).toEqual({
      status: "invalid",
      field: "clickServiceUrl",
      message: expect.stringMatching(/password/),
    });
    expect(elsewhere.seen).toEqual([]);
  });

  it("does not call a mistyped base URL connected just because it answers 404", async () => {
    const { body } = await test({ clickServiceUrl: `${clicks.url}/not-the-service`, apiKey: validKey });
    expect(body.result.status).toBe("unreachable");
    expect(body.result.message).toMatch(/check the base URL/);
  });

  it("asks for the URL and key when nothing is stored", async () => {
    const { body } = await test({ clickServiceUrl: "", apiKey: "" });
    expect(body.result).toEqual({ status: "incomplete", field: "clickServiceUrl" });
  });
});

describe("empty and malformed fields, answered by the schema itself", () => {
  it("answers an empty or non-numeric rate inline instead of failing", async () => {
    for (const commissionRate of ["", "ten", "1e3"]) {
      const { status, body } = await save(form({ commissionRate }));
      expect(status).toBe(400);
      expect(body.errors).toEqual({ commissionRate: "enter a percentage such as 10 or 7.5" });
    }
    expect(await prisma.shopSettings.count()).toBe(0);
  });

  it("reports every field's error together with an unusable URL", async () => {
    const { body } = await save(form({ clickServiceUrl: "", commissionRate: "", hijackTag: "" }));
    expect(Object.keys(body.errors).sort()).toEqual(["clickServiceUrl", "commissionRate", "hijackTag"]);
  });
});

describe("text the settings form carries", () => {
  it("refuses control characters in every text field with a 400 naming the field, saving nothing", async () => {
    for (const [field, value, error] of [
      ["clickServiceUrl", `${clicks.url}/\u0001`, /control characters/],
      ["hijackTag", "hijacked\u0000", /control characters/],
      ["hijackTag", "hi\u0085jacked", /control characters/],
      ["tagParams", "tag\u0007", /letters, digits/],
      ["apiKey", "ck_live\u0000abcdef", /characters an HTTP header cannot carry/],
      ["creatorRates", "cr\u0001alice = 10", /creator id cannot contain control characters/],
      ["creatorRates", "cr_alice\u0000 = 10", /creator id cannot contain control characters/],
    ] as const) {
      const { status, body } = await save(form({ [field]: value }));
      expect(status, `${field} ${JSON.stringify(value)}`).toBe(400);
      expect(body.errors[field], field).toMatch(error);
    }
    expect(await prisma.shopSettings.count()).toBe(0);
  });
});

describe("the commission ledger's settings", () => {
  it("saves a hold period and per-creator rates, and keeps them when a form omits them", async () => {
    const { status, body } = await save(form({ holdDays: "14", creatorRates: "cr_alice = 12.5\n\ncr_bob: 20%\n" }));
    expect(status).toBe(200);
    expect(body.settings).toMatchObject({ holdDays: 14, creatorRates: { cr_alice: "12.5", cr_bob: "20" } });
    // A form without the fields (an older page) changes neither.
    expect((await save(form())).body.settings).toMatchObject({ holdDays: 14, creatorRates: { cr_alice: "12.5" } });
    expect((await save(form({ holdDays: "0", creatorRates: "" }))).body.settings).toMatchObject({
      holdDays: 0,
      creatorRates: {},
    });
  });

  it("refuses a hold outside 0 to 365 days and a creator rate that is not a percentage, saving nothing", async () => {
    for (const holdDays of ["366", "-1", "", "30.5", "thirty"]) {
      const { status, body } = await save(form({ holdDays }));
      expect(status).toBe(400);
      expect(body.errors).toEqual({ holdDays: "the hold is a whole number of days from 0 to 365" });
    }
    expect((await save(form({ creatorRates: "cr_alice = 150" }))).body.errors).toEqual({
      creatorRates: "cr_alice: the rate is a percentage from 0 to 100",
    });
    expect((await save(form({ creatorRates: "cr_alice" }))).body.errors).toEqual({
      creatorRates: "cr_alice: enter a percentage such as 10 or 7.5",
    });
    expect((await save(form({ creatorRates: "= 10" }))).body.errors).toEqual({
      creatorRates: "each line starts with a creator id of 1 to 200 characters",
    });
    expect(await prisma.shopSettings.count()).toBe(0);
  });
});
