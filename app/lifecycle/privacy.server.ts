import { Prisma, type Verification } from "@prisma/client";
import { z } from "zod";
import { isUniqueViolation } from "../database/db.server";
import { deleteWhere, insertRows, rowsOf, sql, type Sql, updateWhere } from "../database/sql.server";
import { redactCarts, redactSources, touchesOfCarts } from "../landing/journey.server";
import { redactPixelSightings, sightingsOfOrders } from "../pixel/sightings.server";
import { logger } from "../platform/logger.server";
import { parseStoredFacts } from "../verification/order-facts";
import {
  claimDelivery,
  deliveryKey,
  installState,
  LIFECYCLE_OUTCOMES,
  previousDelivery,
  recordDelivery,
  type LifecycleResult,
  type SignedDelivery,
} from "./lifecycle-events.server";
import { Commission, DataRequest, Payout, Verification as VerificationTable } from "../database/tables";
import { PayoutLine } from "../database/tables";

// Shopify's mandatory compliance webhooks. The app holds no customer profile: what it keeps
// per order is the click id, the tags and the order's amounts, and per cart the landing
// touches (click id, tag, time) the storefront reported. Those are what we gather, redact or
// erase.
//
// Each is remembered by its signed body (lifecycle-events.server.ts): a delivery Shopify sends
// again, or a captured body replayed under new headers, changes nothing. shop/redact is
// remembered by its event id only, since its body is the same every time the shop is redacted;
// what keeps a replayed one from erasing a live shop is that it acts only on a shop uninstalled
// for a day, as Shopify's own comes 48 hours after the uninstall and never after a reinstall.

const OrderIds = z.array(z.union([z.number(), z.string()]).transform(String)).catch([]);

const CustomerRequest = z.object({
  customer: z
    .object({ id: z.union([z.number(), z.string()]).transform(String).optional() })
    .partial()
    .optional(),
  orders_requested: OrderIds.optional(),
  orders_to_redact: OrderIds.optional(),
});

/**
 * The shop's tables, children before the rows they point at, and each rollup (CommissionDay,
 * CommissionCreator, VerificationHour) after the rows whose triggers keep it.
 */
const SHOP_TABLES = [
  "CommissionEntry",
  "Commission",
  "OrderEvent",
  "PayoutLine",
  "Payout",
  "PayoutRun",
  "PayoutSettings",
  "CreatorPayoutMethod",
  "PaypalEvent",
  "PayoutSchedule",
  "PayoutSchedulePeriod",
  "CreatorProfile",
  "CreatorClaim",
  "CreatorStanding",
  "CreatorDecision",
  "CommissionDay",
  "CommissionCreator",
  "OrderDiscountCode",
  "CodeDeactivation",
  "Verification",
  "VerificationHour",
  "Job",
  "LandingTouch",
  "PixelSighting",
  "ClickRecord",
  "WebhookDelivery",
  "DataRequest",
  "ShopReconciliation",
  "ShopProfile",
  "ShopLanguage",
  "ShopSettings",
  "Session",
] as const;

/**
 * Shopify sends shop/redact 48 hours after the app is uninstalled, and never once it has been
 * installed again. The app's records say which: a shop with an offline session, or whose settings
 * are not marked uninstalled, is installed; one uninstalled less than this long ago has had no
 * shop/redact from Shopify yet. Its uninstall is recorded when app/uninstalled is handled, at
 * most Shopify's retry window (4 hours) after the event.
 */
export const REDACT_NOT_BEFORE_MS = 24 * 60 * 60 * 1000;

const SHOP_REDACT = "shop/redact";

export async function handleShopRedact(delivery: SignedDelivery, now = new Date()): Promise<LifecycleResult> {
  const { shop } = delivery;
  const key = deliveryKey(delivery);
  return sql.transaction(async (tx): Promise<LifecycleResult> => {
    if (await previousDelivery(tx, shop, SHOP_REDACT, key, false)) return { outcome: "duplicate" };
    const state = await installState(tx, shop);
    const installed = state.hasOfflineSession || (state.hasSettings && state.uninstalledAt === null);
    const justUninstalled =
      state.uninstalledAt !== null && now.getTime() - state.uninstalledAt.getTime() < REDACT_NOT_BEFORE_MS;
    if (installed || justUninstalled) {
      logger.warn(
        "privacy.shop_redact_premature",
        installed
          ? "shop/redact refused as premature: the shop is installed (Shopify sends it only 48 hours after an uninstall); nothing deleted"
          : "shop/redact refused as premature: the shop was uninstalled less than a day ago; nothing deleted",
        { shop },
      );
      await recordDelivery(tx, shop, SHOP_REDACT, key, LIFECYCLE_OUTCOMES.premature, now);
      return { outcome: "premature" };
    }
    for (const table of SHOP_TABLES) {
      // A payout's lines name its payout, not the shop.
      const ofShop =
        table === "PayoutLine"
          ? Prisma.sql`${PayoutLine.payoutId} IN (SELECT ${Payout.id} FROM ${Payout} WHERE ${Payout.shop} = ${shop})`
          : Prisma.sql`${Payout.shop} = ${shop}`;
      await deleteWhere(tx, table, ofShop);
    }
    await recordDelivery(tx, shop, SHOP_REDACT, key, LIFECYCLE_OUTCOMES.applied, now);
    return { outcome: "applied" };
  });
}

export async function handleCustomersRedact(delivery: SignedDelivery, now = new Date()): Promise<LifecycleResult> {
  const { shop } = delivery;
  const key = deliveryKey(delivery);
  if (await previousDelivery(sql, shop, "customers/redact", key)) return { outcome: "duplicate" };
  const request = CustomerRequest.safeParse(delivery.payload);
  const orderIds = request.success ? (request.data.orders_to_redact ?? []) : [];
  const customerId = request.success ? request.data.customer?.id : undefined;
  // One transaction: a redaction is never left half done for Shopify's retry to find.
  await sql.transaction(async (tx) => {
    await recordDelivery(tx, shop, "customers/redact", key, LIFECYCLE_OUTCOMES.applied, now);
    for (const ids of inChunks(orderIds)) {
      await redactCarts(tx, shop, await cartTokensOf(tx, shop, ids));
      await redactPixelSightings(tx, shop, ids);
      const ofOrders = Prisma.sql`${VerificationTable.shop} = ${shop} AND ${VerificationTable.orderId} IN (${Prisma.join(ids)})`;
      // The network source the orders were placed from: whatever else the app saw from it goes too.
      await redactSources(tx, shop, ofOrders);
      // The commission stays (the merchant owes the creator); what ties it to a shopper goes.
      await updateWhere(tx, "Verification", ofOrders, {
        clickId: null,
        orderFacts: "{}",
        tamperEvidence: null,
        witnesses: null,
        networkSource: null,
        reason: "customer data redacted",
        updatedAt: now,
      });
      await updateWhere(tx, "WebhookDelivery", ofOrders, { payload: null });
    }
    if (customerId)
      await tx.execute(
        Prisma.sql`DELETE FROM ${DataRequest} WHERE ${DataRequest.shop} = ${shop} AND ${DataRequest.customerId} = ${customerId}`,
      );
  });
  return { outcome: "applied" };
}

/**
 * Gathers what the app holds for the request, once: a delivery of an event or of a signed body
 * already gathered (Shopify's retry, or a replay under a new event id: the body names the request,
 * data_request.id) is a no-op.
 */
export async function handleCustomersDataRequest(delivery: SignedDelivery, now = new Date()): Promise<LifecycleResult> {
  const { shop, eventId } = delivery;
  const key = deliveryKey(delivery);
  if (await previousDelivery(sql, shop, "customers/data_request", key)) return { outcome: "duplicate" };
  const request = CustomerRequest.safeParse(delivery.payload);
  const orderIds = request.success ? (request.data.orders_requested ?? []) : [];
  const [gathered] = await sql.rows(
    Prisma.sql`SELECT ${DataRequest.id} FROM ${DataRequest} WHERE ${DataRequest.shop} = ${shop} AND ${DataRequest.eventId} = ${eventId}`,
  );
  if (gathered) return { outcome: "duplicate" };
  try {
    await gatherDataRequest(
      shop,
      eventId,
      request.success ? (request.data.customer?.id ?? null) : null,
      orderIds,
      (tx) => claimDelivery(tx, shop, "customers/data_request", key, now),
      now,
    );
  } catch (error) {
    // The same event or body delivered twice at once: the other delivery recorded it.
    if (!isUniqueViolation(error)) throw error;
    return { outcome: "duplicate" };
  }
  return { outcome: "applied" };
}

type GatheredOrder = Pick<
  Verification,
  | "orderId"
  | "orderName"
  | "clickId"
  | "arrivedTag"
  | "expectedTag"
  | "creatorId"
  | "outcome"
  | "capturedAt"
  | "createdAt"
> & { commission: { creatorId: string; amount: string; currency: string; status: string } | null };

async function gatherDataRequest(
  shop: string,
  eventId: string,
  customerId: string | null,
  orderIds: string[],
  claim: (tx: Sql) => Promise<void>,
  now: Date,
) {
  // Gathered outside the transaction, a slice at a time: a customer with 50,000 orders took
  // seconds to read, and inside the transaction that held SQLite's write lock, and with it
  // webhook intake, as long. The record is written at once after; only the claim needs the
  // transaction (a second delivery meanwhile finds the first's claim).
  const verifications: GatheredOrder[] = [];
  const landingTouches: Awaited<ReturnType<typeof touchesOfCarts>> = [];
  const pixelReports: Awaited<ReturnType<typeof sightingsOfOrders>> = [];
  for (const ids of inChunks(orderIds)) {
    landingTouches.push(...(await touchesOfCarts(sql, shop, await cartTokensOf(sql, shop, ids))));
    pixelReports.push(...(await sightingsOfOrders(sql, shop, ids)));
    verifications.push(...(await ordersOf(sql, shop, ids)));
  }
  await sql.transaction(async (tx) => {
    await claim(tx);
    await insertRows(tx, "DataRequest", [
      {
        shop,
        eventId,
        customerId,
        ordersAsked: JSON.stringify(orderIds),
        data: JSON.stringify({ orders: verifications, landingTouches, pixelReports }),
        receivedAt: now,
      },
    ]);
  });
}

/** The orders as the data request lists them, in order id order, each with its commission or null. */
async function ordersOf(tx: Sql, shop: string, orderIds: string[]): Promise<GatheredOrder[]> {
  const rows = await rowsOf<
    Omit<GatheredOrder, "commission"> & {
      commissionId: string | null;
      commissionCreatorId: string;
      commissionAmount: string;
      commissionCurrency: string;
      commissionStatus: string;
    }
  >(
    tx,
    "Verification",
    Prisma.sql`
      SELECT v.${VerificationTable.orderId}, v.${VerificationTable.orderName}, v.${VerificationTable.clickId}, v.${VerificationTable.arrivedTag}, v.${VerificationTable.expectedTag}, v.${VerificationTable.creatorId}, v.${VerificationTable.outcome},
             v.${VerificationTable.capturedAt}, v.${VerificationTable.createdAt}, c.${Commission.id} AS "commissionId", c.${Commission.creatorId} AS "commissionCreatorId",
             c.${Commission.amount} AS "commissionAmount", c.${Commission.currency} AS "commissionCurrency", c.${Commission.status} AS "commissionStatus"
      FROM ${VerificationTable} v LEFT JOIN ${Commission} c ON c.${Commission.verificationId} = v.${VerificationTable.id}
      WHERE v.${VerificationTable.shop} = ${shop} AND v.${VerificationTable.orderId} IN (${Prisma.join(orderIds)})
      ORDER BY v.${VerificationTable.orderId} ASC`,
  );
  // The keys in the order the ORM's select gave them: the stored JSON keeps its shape.
  return rows.map((row) => ({
    orderId: row.orderId,
    orderName: row.orderName,
    clickId: row.clickId,
    arrivedTag: row.arrivedTag,
    expectedTag: row.expectedTag,
    creatorId: row.creatorId,
    outcome: row.outcome,
    capturedAt: row.capturedAt,
    createdAt: row.createdAt,
    commission:
      row.commissionId === null
        ? null
        : {
            creatorId: row.commissionCreatorId,
            amount: row.commissionAmount,
            currency: row.commissionCurrency,
            status: row.commissionStatus,
          },
  }));
}

// Each listed id is a value bound to the statement, and the databases cap those (SQLite's build
// at 32,766, PostgreSQL at 65,535), so a customer with thousands of orders is handled a slice at
// a time.
const IDS_PER_STATEMENT = 500;

/** The carts the orders were placed from, as their stored facts name them. */
async function cartTokensOf(tx: Sql, shop: string, orderIds: string[]): Promise<string[]> {
  const rows = await tx.rows<{ orderFacts: string }>(
    Prisma.sql`SELECT ${VerificationTable.orderFacts} FROM ${VerificationTable} WHERE ${VerificationTable.shop} = ${shop} AND ${VerificationTable.orderId} IN (${Prisma.join(orderIds)})`,
  );
  return [...new Set(rows.flatMap((row) => parseStoredFacts(row.orderFacts)?.cartToken ?? []))];
}

function inChunks(ids: string[]): string[][] {
  const unique = [...new Set(ids)];
  const chunks: string[][] = [];
  for (let start = 0; start < unique.length; start += IDS_PER_STATEMENT)
    chunks.push(unique.slice(start, start + IDS_PER_STATEMENT));
  return chunks;
}
