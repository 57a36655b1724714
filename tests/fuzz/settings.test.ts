import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import * as settingsRoute from "../../app/routes/app.settings";
import { ORDER_VALUE_BASES } from "../../app/settings/order-value-basis";
import { routeShopifyTrafficTo, type StandinRouting } from "../../app/platform/shopify-standin-routing.server";
import { startClickService, type RunningClickService } from "../../sandbox/click-service/server";
import { startShopifyStandin, type ShopifyStandin } from "../../sandbox/shopify";
import { APP_URL, call, sessionToken, storeOfflineSession } from "../admin/helpers";
import { anyJson, hostileText } from "./generators";

const prisma = databaseClient();

// Generated settings forms through the settings page's real action, authenticated with a real
// session token. Whatever the form: never a 5xx or a throw; either saved, and then what was
// saved keeps every rule of the settings schema, or refused field by field with nothing at all
// changed in the database.

const SHOP = "fuzz-settings.myshopify.com";
let clicks: RunningClickService;
let standin: ShopifyStandin;
let routing: StandinRouting;
let apiKey: string;

beforeAll(async () => {
  clicks = await startClickService();
  apiKey = clicks.createApiKey();
  standin = await startShopifyStandin();
  routing = routeShopifyTrafficTo(standin.url);
  await storeOfflineSession(SHOP, standin.issueToken(SHOP, { scope: ["read_orders", "write_orders"] }).token);
});
afterAll(async () => {
  await routing?.restore();
  await standin?.close();
  await clicks?.close();
});

const text = (...good: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...good) },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: anyJson.map((value) => (typeof value === "string" ? value : JSON.stringify(value))) },
  );

const FIELDS = () => ({
  intent: text("save", "", "SAVE", "delete"),
  clickServiceUrl: text(
    clicks.url,
    `${clicks.url}///`,
    ` ${clicks.url}/api `,
    "https://clicks.example.com",
    "http://10.0.0.1",
    "ftp://x",
    "https://user:pw@clicks.example.com",
    `https://clicks.example.com/${"p".repeat(3_000)}`,
  ),
  apiKey: text(apiKey, "", "sk_other_1234", "key with spaces"),
  tagParams: text(
    "tag",
    "tag, ref  utm_tag",
    "lb_click",
    ",,,",
    Array.from({ length: 12 }, (_, i) => `p${i}`).join(","),
    "a".repeat(65),
  ),
  hijackTag: text("affiliate-hijacked", "a,b", " spaced ", "t".repeat(41), "stolen-commission"),
  commissionRate: text("10", "7.5", "100", "100.0001", "150", "-1", "10%", "1e2", "0.00001", "  12.5 "),
  orderValueBasis: text(...ORDER_VALUE_BASES, "gross"),
  autoVerify: text("true", "false", "on", "1", "yes"),
  attributionWindowDays: text("30", "1", "365", "0", "366", "2.5", "1e2", " 7 ", "-3"),
  landingLookupsPerHour: text("1000", "10", "100000", "9", "100001", "0x10", ""),
});

type FieldName = keyof ReturnType<typeof FIELDS>;
type Pairs = (readonly [string, string])[];

/** The form a merchant fills in correctly, with some fields given other values (or none). */
function goodForm(changed: Partial<Record<FieldName, string[]>> = {}): Pairs {
  const good: Record<FieldName, string> = {
    intent: "save",
    clickServiceUrl: clicks.url,
    apiKey,
    tagParams: "tag",
    hijackTag: "affiliate-hijacked",
    commissionRate: "10",
    orderValueBasis: "subtotal_after_discounts",
    autoVerify: "true",
    attributionWindowDays: "30",
    landingLookupsPerHour: "1000",
  };
  return (Object.keys(good) as FieldName[]).flatMap((name) =>
    (changed[name] ?? [good[name]]).map((value) => [name, value] as const),
  );
}

/** What fuzzing found (a 500 on PostgreSQL: the tag), and its twin in the URL, tried first on every run. */
const FOUND: Partial<Record<FieldName, string[]>>[] = [
  { hijackTag: ["\u0000"] },
  { clickServiceUrl: ["https://clicks.example.com/\u0000"] },
];

/**
 * A form as a browser could post it: a good one with a few fields changed to anything, removed
 * or repeated, and sometimes fields the page never had.
 */
const form = () => {
  const fields = FIELDS();
  const names = Object.keys(fields) as FieldName[];
  const change = fc.constantFrom(...names).chain((name) =>
    fc.oneof(
      fields[name].map((value) => ({ name, values: [value] })),
      fc.constant({ name, values: [] as string[] }),
      fc.tuple(fields[name], fields[name]).map((values) => ({ name, values })),
    ),
  );
  return fc
    .tuple(
      fc.uniqueArray(change, { maxLength: 3, selector: (c) => c.name }),
      fc.array(fc.tuple(hostileText, hostileText), { maxLength: 2 }),
    )
    .map(([changes, unknown]): Pairs => [
      ...goodForm(Object.fromEntries(changes.map((c) => [c.name, c.values]))),
      ...unknown,
    ]);
};

async function post(pairs: Pairs): Promise<Response> {
  const request = new Request(new URL("/app/settings", APP_URL), {
    method: "POST",
    headers: { authorization: `Bearer ${sessionToken(SHOP)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(pairs.map(([name, value]) => [name, value])),
  });
  return call(settingsRoute.action as never, request);
}

async function snapshot() {
  return {
    settings: await prisma.shopSettings.findUnique({ where: { shop: SHOP } }),
    jobs: await prisma.job.findMany({ where: { shop: SHOP }, orderBy: { id: "asc" } }),
  };
}

describe("fuzzing the settings form", { timeout: 300_000 }, () => {
  it("saves only settings within every rule, and a refused form changes nothing", async () => {
    let saved = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(form(), async (pairs) => {
        const before = await snapshot();
        const response = await post(pairs);
        const body = await response.text();
        expect([200, 400], body.slice(0, 500)).toContain(response.status);
        const answer = JSON.parse(body) as { intent: string; ok: boolean; errors?: Record<string, string> };
        if (response.status === 400) {
          refused += 1;
          expect(answer.ok).toBe(false);
          expect(Object.keys(answer.errors ?? {}).length).toBeGreaterThan(0);
          for (const message of Object.values(answer.errors!)) expect(message).toMatch(/\w/);
          expect(await snapshot()).toEqual(before);
          return;
        }
        saved += 1;
        expect(answer.ok).toBe(true);
        const row = await prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } });
        expect(URL.canParse(row.clickServiceUrl)).toBe(true);
        expect(new URL(row.clickServiceUrl).protocol).toMatch(/^https?:$/);
        expect(row.clickServiceUrl).not.toMatch(/\/$/);
        expect(row.hijackTag).toBe(row.hijackTag.trim());
        expect(row.hijackTag.length).toBeGreaterThan(0);
        expect(row.hijackTag.length).toBeLessThanOrEqual(40);
        expect(row.hijackTag).not.toContain(",");
        expect(row.commissionRate).toMatch(/^\d{1,3}(\.\d{1,4})?$/);
        expect(Number(row.commissionRate)).toBeLessThanOrEqual(100);
        const tagParams = JSON.parse(row.tagParams) as string[];
        expect(tagParams.length).toBeGreaterThan(0);
        expect(tagParams.length).toBeLessThanOrEqual(10);
        for (const name of tagParams) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
        expect(tagParams).not.toContain("lb_click");
        expect(ORDER_VALUE_BASES).toContain(row.orderValueBasis);
        expect(Number.isInteger(row.attributionWindowDays)).toBe(true);
        expect(row.attributionWindowDays).toBeGreaterThanOrEqual(1);
        expect(row.attributionWindowDays).toBeLessThanOrEqual(365);
        expect(row.landingLookupsPerHour).toBeGreaterThanOrEqual(10);
        expect(row.landingLookupsPerHour).toBeLessThanOrEqual(100_000);
      }),
      // Both branches run whatever is generated: a form within every rule, and one that breaks one.
      {
        numRuns: 300,
        examples: [[goodForm()], [goodForm({ commissionRate: ["101"] })], ...FOUND.map((c) => [goodForm(c)])],
      },
    );
    expect(saved).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
