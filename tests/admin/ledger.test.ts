import { beforeAll, describe, expect, it } from "vitest";
import { ledgerCsvStream, neutraliseCell } from "../../app/commissions/csv";
import {
  decodeCursor,
  encodeCursor,
  ledgerRecords,
  PAGE_SIZE,
  parseLedgerFilter,
  type LedgerRow,
} from "../../app/commissions/ledger.server";
import { databaseClient } from "../../app/database/db.server";
import * as ledgerRoute from "../../app/routes/app.commissions";
import * as exportRoute from "../../app/routes/app.commissions.export";
import { adminRequest, call, seedVerification, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

const SHOP = "ledger-test.myshopify.com";
const OTHER = "ledger-other.myshopify.com";
const DAY = 24 * 60 * 60 * 1000;
const BASE = Date.now() - 100 * DAY;

async function page(query: string) {
  const response = await call(ledgerRoute.loader as never, adminRequest(`/app/commissions${query}`, SHOP));
  expect(response.status).toBe(200);
  return response.json() as Promise<{
    rows: LedgerRow[];
    nextCursor: string | null;
    totals: { currency: string; total: string; totalText: string; records: number }[];
  }>;
}

beforeAll(async () => {
  await storeOfflineSession(SHOP);
  await storeOfflineSession(OTHER);
  // 130 records: every 3rd redirected, creators alternate, a few share one timestamp (ties broken by id).
  for (let i = 0; i < 130; i++) {
    const createdAt = new Date(i < 10 ? BASE + 99 * DAY : BASE + i * (DAY / 2));
    await seedVerification({
      shop: SHOP,
      outcome: i % 3 === 0 ? "hijacked" : "matched",
      creatorId: i % 2 === 0 ? "creator-even" : "creator-odd",
      arrivedTag:
        i === 7 ? '=HYPERLINK("http://evil","x")' : i === 8 ? 'tag, with "quotes"\nand newline' : "creator-tag",
      createdAt,
      commission: {
        amountMinor: BigInt(100 + i),
        amount: ((100 + i) / 100).toFixed(2),
        currency: i % 5 === 0 ? "EUR" : "USD",
        redirected: i % 3 === 0,
        status: i % 10 === 0 ? "paid" : "pending",
      },
    });
  }
  await seedVerification({
    shop: OTHER,
    outcome: "matched",
    commission: { amountMinor: 99999n, amount: "999.99", currency: "USD" },
  });
});

describe("commission ledger", () => {
  it("walks every record exactly once with keyset cursors, newest first", async () => {
    const seen: LedgerRow[] = [];
    let query = "";
    let pages = 0;
    for (;;) {
      const data = await page(query);
      pages++;
      expect(data.rows.length).toBeLessThanOrEqual(PAGE_SIZE);
      seen.push(...data.rows);
      if (!data.nextCursor) break;
      query = `?cursor=${data.nextCursor}`;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(130);
    expect(new Set(seen.map((r) => r.id)).size).toBe(130);
    const keys = seen.map((r) => [r.createdAt, r.id] as const);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? 1 : -1));
    expect(keys).toEqual(sorted);
  });

  it("totals the whole filtered set per currency in SQL, not just the page", async () => {
    const data = await page("");
    const expected = new Map<string, bigint>();
    for (let i = 0; i < 130; i++) {
      const currency = i % 5 === 0 ? "EUR" : "USD";
      expected.set(currency, (expected.get(currency) ?? 0n) + BigInt(100 + i));
    }
    expect(data.totals).toEqual([
      {
        currency: "EUR",
        total: `EUR ${(Number(expected.get("EUR")) / 100).toFixed(2)}`,
        // 26 records of 1.00 + i/100 for i = 0, 5, … 125, as the merchant's locale (en-US by default) writes it.
        totalText: "€42.25",
        records: 26,
      },
      {
        currency: "USD",
        total: `USD ${(Number(expected.get("USD")) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}`,
        totalText: "$171.60",
        records: 104,
      },
    ]);
  });

  it("filters by creator, status, redirected and period", async () => {
    const redirected = await page("?redirected=1");
    expect(redirected.totals.reduce((n, t) => n + t.records, 0)).toBe(44);
    expect(redirected.rows.every((r) => r.redirected)).toBe(true);

    const creator = await page("?creator=creator-odd&status=pending");
    expect(creator.rows.every((r) => r.creatorId === "creator-odd" && r.status === "pending")).toBe(true);
    expect(creator.totals.reduce((n, t) => n + t.records, 0)).toBe(65);

    const paid = await page("?status=paid");
    expect(paid.totals.reduce((n, t) => n + t.records, 0)).toBe(13);

    const week = await page("?days=7");
    expect(week.totals.reduce((n, t) => n + t.records, 0)).toBe(10);

    const bogus = await page("?status=drop%20table&days=13");
    expect(bogus.totals.reduce((n, t) => n + t.records, 0)).toBe(130);
  });

  it("ignores malformed cursors instead of failing", async () => {
    expect(decodeCursor("!!!")).toBeNull();
    expect(decodeCursor(Buffer.from("1:x' OR 1=1").toString("base64url"))).toBeNull();
    expect(decodeCursor(encodeCursor({ createdAt: 5, id: "abc" }))).toEqual({ createdAt: 5, id: "abc" });
    expect((await page("?cursor=garbage")).rows).toHaveLength(PAGE_SIZE);
  });
});

describe("CSV export", () => {
  it("reads the filtered set in keyset batches, each record once, in order", async () => {
    const ids: string[] = [];
    for await (const row of ledgerRecords(SHOP, parseLedgerFilter(new URLSearchParams("redirected=1")), new Date(), 7))
      ids.push(row.id);
    expect(ids).toHaveLength(44);
    expect(new Set(ids).size).toBe(44);
    const all: string[] = [];
    for await (const row of ledgerRecords(SHOP, parseLedgerFilter(new URLSearchParams("")), new Date(), 1000))
      all.push(row.id);
    expect(all.filter((id) => ids.includes(id))).toEqual(ids);
  });

  it("neutralises formula cells", () => {
    for (const cell of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(neutraliseCell(cell)).toBe(`'${cell}`);
    expect(neutraliseCell("creator-tag")).toBe("creator-tag");
  });

  it("streams the filtered set with correct quoting", async () => {
    const response = await call(
      exportRoute.loader as never,
      adminRequest("/app/commissions/export?creator=creator-odd", SHOP),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(response.headers.get("content-disposition")).toMatch(
      /attachment; filename="commissions-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const text = await response.text();
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe(
      "Recorded at (UTC),Order,Order ID,Creator,Creator name,Creator email,Expected tag,Arrived tag,Redirected,Order value,Currency,Rate (%),Commission,Status,Entries (kind amount)",
    );
    expect(text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(text).not.toContain(",=HYPERLINK");
    expect(text).not.toContain("creator-even");
    // 65 records + header; one record's arrived tag holds a newline inside quotes.
    expect(text.match(/creator-odd/g)).toHaveLength(65);
  });

  it("quotes commas, quotes and newlines", async () => {
    const row = {
      createdAt: "2026-01-01T00:00:00.000Z",
      orderName: "#1",
      orderId: "1",
      creatorId: "c",
      expectedTag: "e",
      arrivedTag: 'a, "b"\nc',
      redirected: false,
      orderValue: "1.00",
      currency: "USD",
      rate: "10",
      amount: "0.10",
      status: "pending",
    } as LedgerRow;
    const chunks: Buffer[] = [];
    for await (const chunk of ledgerCsvStream([row])) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString("utf8");
    expect(text.split("\r\n")[1]).toBe(
      '2026-01-01T00:00:00.000Z,#1,1,c,,,e,"a, ""b""\nc",no,1.00,USD,10,0.10,pending,',
    );
  });

  it("exports only the session's shop", async () => {
    const response = await call(exportRoute.loader as never, adminRequest("/app/commissions/export", SHOP));
    const text = await response.text();
    expect(text).not.toContain("999.99");
    expect(await prisma.commission.count({ where: { shop: SHOP } })).toBe(130);
  });
});
