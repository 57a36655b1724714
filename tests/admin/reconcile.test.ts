import { installGlobals } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { beginReconciliation, reconciliationStatus } from "../../app/reconciliation/reconciliation.server";
import * as reconcileRoute from "../../app/routes/app.reconcile";
import { adminRequest, call, storeOfflineSession } from "./helpers";

const prisma = databaseClient();

// "Check now": the merchant's own shop's sweep, brought forward through the admin's session
// token, and nobody else's.

// The fetch globals the production server runs the routes with (server.mjs installs Remix's,
// single fetch being off): their Response has no static json(), which Node's own has. Called
// without them, a route that uses what only Node's globals offer passes here and fails there.
installGlobals({ nativeFetch: false });

const SHOP = "reconcile-admin.myshopify.com";
const OTHER = "reconcile-other.myshopify.com";
const HOUR = 60 * 60_000;

const jobOf = (shop: string) =>
  prisma.job.findUniqueOrThrow({ where: { kind_subject: { kind: "reconcile-shop", subject: shop } } });

describe("Check now", () => {
  it("brings the shop's sweep forward, says it is checking, and leaves other shops' sweeps alone", async () => {
    for (const shop of [SHOP, OTHER]) {
      await storeOfflineSession(shop);
      await beginReconciliation(shop, new Date(Date.now() - HOUR));
      // The sweep ran at install and waits for its next turn, an interval later.
      await prisma.job.update({
        where: { kind_subject: { kind: "reconcile-shop", subject: shop } },
        data: { runAt: new Date(Date.now() + HOUR) },
      });
    }
    expect((await reconciliationStatus(SHOP))?.pending).toBe(false);

    const response = await call(
      reconcileRoute.action as never,
      adminRequest("/app/reconcile", SHOP, { method: "POST" }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect((await jobOf(SHOP)).runAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await reconciliationStatus(SHOP))?.pending).toBe(true);
    expect((await jobOf(OTHER)).runAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("starts a sweep that had stopped again, with fresh attempts", async () => {
    await prisma.job.update({
      where: { kind_subject: { kind: "reconcile-shop", subject: OTHER } },
      data: { state: "done", attempts: 9 },
    });
    await call(reconcileRoute.action as never, adminRequest("/app/reconcile", OTHER, { method: "POST" }));
    expect(await jobOf(OTHER)).toMatchObject({ state: "queued", attempts: 0 });
  });

  it("refuses a request without the admin's session token", async () => {
    const response = await call(
      reconcileRoute.action as never,
      adminRequest("/app/reconcile", SHOP, { method: "POST", token: null }),
    );
    expect(response.status).not.toBe(200);
    expect(response.status).toBeLessThan(500);
  });
});
