import { createHash } from "node:crypto";
import { Prisma } from "@prisma/client";
import { sqlTime } from "../database/db.server";
import { insertRows, readDate, sql, type Sql, upsertRow } from "../database/sql.server";
import { LifecycleEvent, Session, ShopSettings } from "../database/tables";

// The app's memory of the lifecycle and compliance webhooks it has handled (decision 028).
//
// Shopify's HMAC covers the body alone. X-Shopify-Event-Id, X-Shopify-Webhook-Id and
// X-Shopify-Triggered-At are headers anyone holding a captured body can rewrite, so a memory
// keyed on the event id stops Shopify's own redeliveries but not a replay under a new id. The
// body is what a replay cannot change: each row is one signed body (its SHA-256), with the event
// id of the latest delivery handled under it. Only Shopify can make a new signed body, so a
// replay adds no row however often it is sent, and the table grows with Shopify's events alone.

/** A delivery whose signature the library has checked (app/webhooks/receive.server.ts). */
export interface SignedDelivery {
  shop: string;
  /** X-Shopify-Event-Id (or the webhook id): the same across Shopify's retries, not signed. */
  eventId: string;
  /** X-Shopify-Triggered-At, not signed. */
  triggeredAt: Date | null;
  payload: unknown;
  /** The body exactly as signed. */
  rawBody: string;
}

export const LIFECYCLE_TOPICS = [
  "app/uninstalled",
  "app/scopes_update",
  "shop/redact",
  "customers/redact",
  "customers/data_request",
] as const;
export type LifecycleTopic = (typeof LIFECYCLE_TOPICS)[number];

export const LIFECYCLE_OUTCOMES = {
  /** Acted on. */
  applied: "applied",
  /** app/uninstalled triggered before the shop's last authorization: it belongs to the install before. */
  beforeAuthorization: "before-authorization",
  /** app/scopes_update older than one already applied. */
  superseded: "superseded",
  /** shop/redact while the shop is installed, or less than a day after its uninstall: refused. */
  premature: "premature",
} as const;
export type LifecycleOutcome = (typeof LIFECYCLE_OUTCOMES)[keyof typeof LIFECYCLE_OUTCOMES];

/** What a lifecycle or compliance webhook did: the route answers 503 to ask-later, 200 to the rest. */
export type LifecycleResult = {
  /**
   * applied: acted on; duplicate: a delivery of an event or body already handled; replay: a body
   * handled before the last authorization, which Shopify says is stale (or cannot say: see
   * shop-lifecycle.server.ts);
   * before-authorization and superseded: older than what the app holds; premature: shop/redact
   * while installed; ask-later: answer 503 so that Shopify delivers it again.
   */
  outcome: "applied" | "duplicate" | "replay" | "before-authorization" | "superseded" | "premature" | "ask-later";
};

/** How long a body is remembered: a captured body older than this is no longer recognised. */
export const LIFECYCLE_MEMORY_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export function bodyDigest(rawBody: string): string {
  return createHash("sha256").update(rawBody, "utf8").digest("hex");
}

export interface DeliveryKey {
  /** bodyDigest of the signed body. */
  digest: string;
  eventId: string;
}

/** What the memory knows a delivery by: its signed body, and the event id it came with (cut to a sane length). */
export function deliveryKey(delivery: SignedDelivery): DeliveryKey {
  return { digest: bodyDigest(delivery.rawBody), eventId: delivery.eventId.slice(0, 255) };
}

export interface PreviousDelivery {
  eventId: string;
  outcome: string;
  receivedAt: Date;
  /** The stored row is this body (not only this event id). */
  sameBody: boolean;
}

/**
 * What the app already did with this event id or, with `byBody`, with this signed body; null
 * when neither is known. shop/redact asks by event id only: its body ({shop_id, shop_domain}) is
 * the same every time the shop is redacted, install after install.
 */
export async function previousDelivery(
  tx: Sql,
  shop: string,
  topic: LifecycleTopic,
  delivery: DeliveryKey,
  byBody = true,
): Promise<PreviousDelivery | null> {
  const match = byBody
    ? Prisma.sql`(${LifecycleEvent.bodyDigest} = ${delivery.digest} OR ${LifecycleEvent.eventId} = ${delivery.eventId})`
    : Prisma.sql`${LifecycleEvent.eventId} = ${delivery.eventId}`;
  const rows = await tx.rows<{ eventId: string; outcome: string; receivedAt: unknown; bodyDigest: string }>(
    Prisma.sql`SELECT ${LifecycleEvent.columns("eventId", "outcome", "receivedAt", "bodyDigest")} FROM ${LifecycleEvent}
      WHERE ${LifecycleEvent.shop} = ${shop} AND ${LifecycleEvent.topic} = ${topic} AND ${match}`,
  );
  // The body's own row first: it says when this body was last handled.
  const row = rows.find((candidate) => candidate.bodyDigest === delivery.digest) ?? rows[0];
  if (!row) return null;
  return {
    eventId: row.eventId,
    outcome: row.outcome,
    receivedAt: readDate(row.receivedAt),
    sameBody: row.bodyDigest === delivery.digest,
  };
}

/** Remembers what was done with this body (one row per body: a later delivery of it updates the row). */
export async function recordDelivery(
  tx: Sql,
  shop: string,
  topic: LifecycleTopic,
  delivery: DeliveryKey,
  outcome: LifecycleOutcome,
  now: Date,
  occurredAt: Date | null = null,
): Promise<void> {
  await upsertRow(
    tx,
    "LifecycleEvent",
    ["shop", "topic", "bodyDigest"],
    {
      shop,
      topic,
      bodyDigest: delivery.digest,
      eventId: delivery.eventId,
      outcome,
      occurredAt,
      receivedAt: now,
    },
    ["eventId", "outcome", "occurredAt", "receivedAt"],
  );
}

/**
 * Remembers a body as applied, or throws a unique violation when another delivery of it has been
 * recorded meanwhile: inside the transaction that acts on it, so two deliveries racing act once.
 */
export async function claimDelivery(
  tx: Sql,
  shop: string,
  topic: LifecycleTopic,
  delivery: DeliveryKey,
  now: Date,
): Promise<void> {
  await insertRows(tx, "LifecycleEvent", [
    {
      shop,
      topic,
      bodyDigest: delivery.digest,
      eventId: delivery.eventId,
      outcome: LIFECYCLE_OUTCOMES.applied,
      occurredAt: null,
      receivedAt: now,
    },
  ]);
}

/** Forgets bodies handled more than LIFECYCLE_MEMORY_DAYS ago. Idempotent; safe on every instance. */
export async function purgeLifecycleEvents(now: Date): Promise<number> {
  const before = sqlTime(new Date(now.getTime() - LIFECYCLE_MEMORY_DAYS * DAY_MS));
  return sql.execute(Prisma.sql`DELETE FROM ${LifecycleEvent} WHERE ${LifecycleEvent.receivedAt} < ${before}`);
}

export interface Sweep {
  runOnce(): Promise<number>;
  stop(): void;
}

/** Purges the memory on a timer, as the worker's other sweeps run (background.server.ts). */
export function startLifecycleEventPurge(
  intervalMs: number,
  onError: (error: unknown) => void,
  now: () => Date = () => new Date(),
): Sweep {
  const runOnce = () => purgeLifecycleEvents(now());
  const timer = setInterval(() => {
    runOnce().catch(onError);
  }, intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}

/** What the app's records say of the shop's installation. */
export interface InstallState {
  /** An offline session is stored: the app holds a token for the shop. */
  hasOfflineSession: boolean;
  hasSettings: boolean;
  /** When the app last got an offline token for the shop (ShopSettings; null without settings). */
  authorizedAt: Date | null;
  uninstalledAt: Date | null;
}

export async function installState(tx: Sql, shop: string): Promise<InstallState> {
  const [session] = await tx.rows(
    Prisma.sql`SELECT ${Session.id} FROM ${Session} WHERE ${Session.id} = ${`offline_${shop}`} AND ${Session.shop} = ${shop}`,
  );
  const [settings] = await tx.rows<{ authorizedAt: unknown; uninstalledAt: unknown }>(
    Prisma.sql`SELECT ${ShopSettings.authorizedAt}, ${ShopSettings.uninstalledAt} FROM ${ShopSettings} WHERE ${ShopSettings.shop} = ${shop}`,
  );
  return {
    hasOfflineSession: session !== undefined,
    hasSettings: settings !== undefined,
    authorizedAt: settings?.authorizedAt == null ? null : readDate(settings.authorizedAt),
    uninstalledAt: settings?.uninstalledAt == null ? null : readDate(settings.uninstalledAt),
  };
}
