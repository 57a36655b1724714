import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { createClickServiceClient } from "../../app/click-service";
import { refuseInsideTransaction, transactionBody } from "../../app/platform/transaction-scope";
import { callAdmin } from "../../app/shopify-admin/admin-client.server";

const prisma = databaseClient();

// No database transaction waits on the network (docs/database.md): the clients of the click
// service and of Shopify's Admin API refuse a call made from a transaction's body, in
// sql.transaction, the one way the app opens one, and take it as usual once the transaction is over.

const clickService = () => createClickServiceClient({ baseUrl: "https://clicks.example.com", apiKey: "ck_scope_0001" });
const adminAnswering = async () => Response.json({ data: { shop: { id: "gid://shopify/Shop/1" } } });

describe("a transaction's body", () => {
  it("refuses a call however deep in its awaits, and only while it runs", async () => {
    await expect(
      transactionBody(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        refuseInsideTransaction("a test call");
      }),
    ).rejects.toThrow("a test call was called inside a database transaction");
    expect(() => refuseInsideTransaction("a test call")).not.toThrow();
  });

  it("refuses the click service inside sql.transaction, and rolls the transaction back", async () => {
    const shop = "transaction-scope.myshopify.com";
    await expect(
      sql.transaction(async (tx) => {
        await tx.execute(Prisma.sql`DELETE FROM "Job" WHERE "shop" = ${shop}`);
        return clickService().lookupClick("clk_1");
      }),
    ).rejects.toThrow("the click service was called inside a database transaction");
    // The database is usable at once: the transaction ended.
    expect(await prisma.job.count({ where: { shop } })).toBe(0);
  });

  it("refuses Shopify's Admin API inside a transaction, and takes it after", async () => {
    await expect(sql.transaction(() => callAdmin(adminAnswering, "{ shop { id } }", undefined))).rejects.toThrow(
      "Shopify's Admin API was called inside a database transaction",
    );
    expect(await callAdmin(adminAnswering, "{ shop { id } }", undefined)).toMatchObject({ ok: true });
  });
});
