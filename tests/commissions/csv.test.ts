// The CSV writers on their own: exact text for exact rows, the formula guard on every column,
// empty cells for missing values, and a failing row source surfacing as a stream error.
import { describe, expect, it } from "vitest";
import { CSV_COLUMNS, ledgerCsvStream, neutraliseCell, payoutCsvStream } from "../../app/commissions/csv";
import type { LedgerRow } from "../../app/commissions/ledger.server";

const row: LedgerRow = {
  id: "r1",
  verificationId: "v1",
  createdAt: "2026-01-01T00:00:00.000Z",
  orderName: "#1001",
  orderId: "820982911946154508",
  creatorId: "cr_alice",
  expectedTag: "alice-20",
  arrivedTag: "honey-77",
  redirected: true,
  orderValue: "120.00",
  currency: "USD",
  rate: "10",
  amount: "12.00",
  status: "pending",
  creatorName: "Alice Liddell",
  creatorEmail: "alice@example.com",
  entries: "credit 12.00",
};

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

describe("ledgerCsvStream", () => {
  it("writes the header and each row in column order, CRLF-terminated, yes/no for redirected", async () => {
    expect(await text(ledgerCsvStream([row, { ...row, redirected: false, orderName: "#1002" }]))).toBe(
      "Recorded at (UTC),Order,Order ID,Creator,Creator name,Creator email,Expected tag,Arrived tag,Redirected,Order value,Currency,Rate (%),Commission,Status,Entries (kind amount)\r\n" +
        "2026-01-01T00:00:00.000Z,#1001,820982911946154508,cr_alice,Alice Liddell,alice@example.com,alice-20,honey-77,yes,120.00,USD,10,12.00,pending,credit 12.00\r\n" +
        "2026-01-01T00:00:00.000Z,#1002,820982911946154508,cr_alice,Alice Liddell,alice@example.com,alice-20,honey-77,no,120.00,USD,10,12.00,pending,credit 12.00\r\n",
    );
  });

  it("writes only the header for no rows", async () => {
    expect(await text(ledgerCsvStream([]))).toBe(`${CSV_COLUMNS.map((c) => c.header).join(",")}\r\n`);
  });

  it("leaves a missing value empty, never 'null'", async () => {
    const lines = (await text(ledgerCsvStream([{ ...row, orderName: null }]))).split("\r\n");
    expect(lines[1]).toBe(
      "2026-01-01T00:00:00.000Z,,820982911946154508,cr_alice,Alice Liddell,alice@example.com,alice-20,honey-77,yes,120.00,USD,10,12.00,pending,credit 12.00",
    );
  });

  it("guards every outside-supplied column against formulas", async () => {
    const lines = (
      await text(
        ledgerCsvStream([
          {
            ...row,
            creatorId: "=cmd()",
            creatorName: "=HYPERLINK()",
            creatorEmail: "@x",
            expectedTag: "+1",
            arrivedTag: "@A1",
            orderName: "-2",
          },
        ]),
      )
    ).split("\r\n");
    expect(lines[1]).toBe(
      "2026-01-01T00:00:00.000Z,'-2,820982911946154508,'=cmd(),'=HYPERLINK(),'@x,'+1,'@A1,yes,120.00,USD,10,12.00,pending,credit 12.00",
    );
  });

  it("pulls rows from an async source, and fails the stream with the source's error", async () => {
    async function* rows() {
      yield row;
      throw new Error("database went away");
    }
    const stream = ledgerCsvStream(rows());
    await expect(text(stream)).rejects.toThrow("database went away");
  });
});

describe("payoutCsvStream", () => {
  const line = {
    reference: "Wire 77",
    paidOn: "2026-11-20",
    creatorId: "cr_alice",
    creatorName: "Alice Liddell",
    creatorEmail: "alice@example.com",
    amount: "12.00",
    currency: "USD",
    records: 3,
    voidedAt: "",
    method: "manual",
    providerId: "",
  };

  it("writes one guarded row per creator and currency, each with the payment's reference and date", async () => {
    expect(
      await text(
        payoutCsvStream([
          line,
          {
            ...line,
            creatorId: "=evil",
            creatorName: "+name",
            amount: "-1.00",
            currency: "EUR",
            records: 1,
            voidedAt: "2026-11-21T10:00:00.000Z",
            method: "gift_card",
            providerId: "gid://shopify/GiftCard/7",
          },
        ]),
      ),
    ).toBe(
      "Reference,Date paid,Creator,Creator name,Creator email,Amount,Currency,Records,Voided at (UTC),Method,Provider id\r\n" +
        "Wire 77,2026-11-20,cr_alice,Alice Liddell,alice@example.com,12.00,USD,3,,manual,\r\n" +
        "Wire 77,2026-11-20,'=evil,'+name,alice@example.com,'-1.00,EUR,1,2026-11-21T10:00:00.000Z,gift_card,gid://shopify/GiftCard/7\r\n",
    );
  });

  it("fails the stream when the rows cannot be read", async () => {
    function* rows(): Generator<typeof line> {
      yield line;
      throw new Error("payout vanished");
    }
    await expect(text(payoutCsvStream(rows()))).rejects.toThrow("payout vanished");
  });
});

describe("neutraliseCell", () => {
  it("quotes only a leading formula character", () => {
    for (const cell of ["=1", "+1", "-1", "@x", "\tx", "\rx"]) expect(neutraliseCell(cell)).toBe(`'${cell}`);
    for (const cell of ["a=1", "1+1", "", " =1", "x\t", "'=1", "#1"]) expect(neutraliseCell(cell)).toBe(cell);
  });
});
