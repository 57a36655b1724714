import { Prisma } from "@prisma/client";
import { readDate, sql, updateWhere } from "../database/sql.server";
import { storableTime } from "../database/storable";
import { logger } from "../platform/logger.server";
import {
  deliveryKey,
  installState,
  LIFECYCLE_OUTCOMES,
  previousDelivery,
  recordDelivery,
  type LifecycleResult,
  type SignedDelivery,
} from "./lifecycle-events.server";
import { askShopify, type InstallationCheck } from "./shopify-installation.server";
import { LifecycleEvent, PayoutSchedule, Session, ShopReconciliation, ShopSettings } from "../database/tables";

// Uninstall ends access, not the merchant's records: Shopify sends shop/redact 48 hours later,
// and a merchant who reinstalls before then finds their ledger intact.
//
// What an app/uninstalled is judged on (decision 028). The HMAC covers the body alone, and
// Shopify's documented app/uninstalled body (Admin API 2026-07, "Occurs whenever a shop has
// uninstalled the app") is the shop resource: id, name, domain, myshopify_domain, plan, currency,
// created_at, updated_at and the like. It carries no time of the uninstall:
//  - `updated_at` is when the shop's own record last changed, which an uninstall need not touch
//    (Shopify's example has it null). Judged against the last authorization, it would throw away a
//    real uninstall of any shop not edited since it installed the app: not relied on;
//  - the event id (X-Shopify-Event-Id), its order and X-Shopify-Triggered-At are headers: anyone
//    replaying a captured body writes them as they like. Not relied on to act, only to refuse
//    (an uninstall Shopify says was triggered before the last install changes nothing).
// So the app relies on the body itself, and on Shopify's own record of the authorization:
//  1. A signed body the app has already handled changes nothing, whatever its headers: Shopify's
//     retries carry the same body, and a replay can carry no other (lifecycle-events.server.ts).
//  2. Except one the app last saw before the shop's latest authorization (a reinstall since):
//     the shop payload of a shop nobody edited is the same byte for byte at every uninstall, so a
//     new uninstall and a replay of the one before the reinstall cannot be told apart by their
//     bodies. Then Shopify is asked with the offline token the reinstall gave: Shopify revokes it
//     when the app is uninstalled. Honoured: a replay, nothing changes. Refused: a new uninstall.
//     No answer: 503, and Shopify delivers it again. An expired token proves nothing either way
//     (Shopify refuses expired and revoked tokens alike): nothing changes, and it is logged.
//  3. A body never seen acts, unless X-Shopify-Triggered-At puts it before the last
//     authorization: Shopify delivers app/uninstalled again until answered (8 times over 4
//     hours), and one delivered after the merchant reinstalled belongs to the install before;
//     acting on it would delete the new token and switch a live shop off.

const UNINSTALLED = "app/uninstalled";
const SCOPES_UPDATE = "app/scopes_update";

export interface UninstallOptions {
  /** Shopify's word on the installation, for a body seen before the last authorization. */
  installation?: InstallationCheck;
  now?: Date;
}

export async function handleAppUninstalled(
  delivery: SignedDelivery,
  { installation = askShopify, now = new Date() }: UninstallOptions = {},
): Promise<LifecycleResult> {
  const { shop } = delivery;
  const key = deliveryKey(delivery);
  const before = await previousDelivery(sql, shop, UNINSTALLED, key);
  const state = await installState(sql, shop);
  if (before) {
    // Installed again since this body was last handled: a session is stored, and the app was
    // authorized after it (a shop without settings keeps no time: its session says it).
    const reinstalledSince =
      state.hasOfflineSession && (state.authorizedAt === null || state.authorizedAt > before.receivedAt);
    if (!before.sameBody || before.eventId === key.eventId || !reinstalledSince) {
      if (before.eventId !== key.eventId)
        logger.warn(
          "lifecycle.uninstall_duplicate",
          "app/uninstalled: a body already handled, under another event id; changed nothing",
          { shop },
        );
      return { outcome: "duplicate" };
    }
    const answer = await installation(shop);
    if (answer === "ask-later") {
      logger.warn(
        "lifecycle.uninstall_ask_later",
        "app/uninstalled: cannot ask Shopify now whether the app is still installed; refused for now",
        {
          shop,
        },
      );
      return { outcome: "ask-later" };
    }
    if (answer !== "uninstalled") {
      logger.warn(
        "lifecycle.uninstall_replay",
        answer === "installed"
          ? "app/uninstalled: a body from before the last install, and Shopify still honours the app's token: a replay; changed nothing"
          : "app/uninstalled: a body from before the last install, and no unexpired token to ask Shopify with; changed nothing",
        { shop },
      );
      return { outcome: "replay" };
    }
  } else if (delivery.triggeredAt && state.authorizedAt && state.authorizedAt > delivery.triggeredAt) {
    logger.info("lifecycle.uninstall_before_install", "app/uninstalled from before the last install: nothing to do", {
      shop,
    });
    await recordDelivery(sql, shop, UNINSTALLED, key, LIFECYCLE_OUTCOMES.beforeAuthorization, now);
    return { outcome: "before-authorization" };
  }
  await sql.transaction(async (tx) => {
    await tx.execute(Prisma.sql`DELETE FROM ${Session} WHERE ${Session.shop} = ${shop}`);
    // Orders placed while the app is away are not its to import: a reinstall starts the
    // reconciliation sweep afresh (app/reconciliation).
    await tx.execute(Prisma.sql`DELETE FROM ${ShopReconciliation} WHERE ${ShopReconciliation.shop} = ${shop}`);
    // No payout is sent for a shop without the app: its schedule is off until the merchant turns it on again.
    await updateWhere(tx, "PayoutSchedule", Prisma.sql`${PayoutSchedule.shop} = ${shop}`, {
      enabled: false,
      updatedAt: now,
    });
    await updateWhere(
      tx,
      "ShopSettings",
      Prisma.sql`${ShopSettings.shop} = ${shop} AND ${ShopSettings.uninstalledAt} IS NULL`,
      {
        uninstalledAt: now,
        updatedAt: now,
      },
    );
    await recordDelivery(tx, shop, UNINSTALLED, key, LIFECYCLE_OUTCOMES.applied, now);
  });
  return { outcome: "applied" };
}

/** After every offline token the app is given (install, reinstall): the shop is installed as of now. */
export async function handleAuthorized(shop: string, now: Date = new Date()): Promise<void> {
  await updateWhere(sql, "ShopSettings", Prisma.sql`${ShopSettings.shop} = ${shop}`, {
    uninstalledAt: null,
    authorizedAt: now,
    updatedAt: now,
  });
}

/**
 * The scopes the merchant granted, stored on the shop's sessions. Its body is signed with its own
 * time (`updated_at`, Shopify's documented payload): an update older than one already applied
 * changes nothing, so a replayed or late one cannot put back scopes since changed.
 */
export async function handleScopesUpdate(delivery: SignedDelivery, now = new Date()): Promise<LifecycleResult> {
  const { shop } = delivery;
  const payload = delivery.payload as { current?: unknown; updated_at?: unknown } | null;
  const current = payload?.current;
  if (!Array.isArray(current) || !current.every((scope) => typeof scope === "string")) return { outcome: "duplicate" };
  const key = deliveryKey(delivery);
  if (await previousDelivery(sql, shop, SCOPES_UPDATE, key)) return { outcome: "duplicate" };
  const occurredAt = readSignedTime(payload?.updated_at);
  if (occurredAt) {
    const [latest] = await sql.rows<{ at: unknown }>(
      Prisma.sql`SELECT MAX(${LifecycleEvent.occurredAt}) AS "at" FROM ${LifecycleEvent}
        WHERE ${LifecycleEvent.shop} = ${shop} AND ${LifecycleEvent.topic} = ${SCOPES_UPDATE} AND ${LifecycleEvent.outcome} = ${LIFECYCLE_OUTCOMES.applied}`,
    );
    if (latest?.at != null && readDate(latest.at) > occurredAt) {
      logger.info(
        "lifecycle.scopes_update_superseded",
        "app/scopes_update older than one already applied: nothing to do",
        { shop },
      );
      await recordDelivery(sql, shop, SCOPES_UPDATE, key, LIFECYCLE_OUTCOMES.superseded, now, occurredAt);
      return { outcome: "superseded" };
    }
  }
  await sql.transaction(async (tx) => {
    await updateWhere(tx, "Session", Prisma.sql`${Session.shop} = ${shop}`, { scope: current.join(",") });
    await recordDelivery(tx, shop, SCOPES_UPDATE, key, LIFECYCLE_OUTCOMES.applied, now, occurredAt);
  });
  return { outcome: "applied" };
}

function readSignedTime(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const at = Date.parse(value);
  return Number.isNaN(at) || !storableTime(at) ? null : new Date(at);
}
