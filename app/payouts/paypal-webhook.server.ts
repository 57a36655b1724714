import { Prisma } from "@prisma/client";
import { z } from "zod";
import { isUniqueViolation } from "../database/db.server";
import { insertRows, sql } from "../database/sql.server";
import { Payout, PayoutRun, PaypalEvent } from "../database/tables";
import { FixedWindowCounter } from "../landing/rate-limits.server";
import { logger } from "../platform/logger.server";
import { SealError } from "../platform/sealing.server";
import { createPaypalClient } from "../paypal/client.server";
import { dueNow } from "../queue/queue.server";
import { wakeWorker } from "../queue/wake.server";
import { readCapped } from "../webhooks/read-capped";
import { paypalAccount } from "./payout-settings.server";

// PayPal's webhooks for a shop (/webhooks/paypal/{shop}): bounded (64 KiB, 120 a minute per
// shop), each event recorded once by its id, and only after PayPal's verify-webhook-signature
// says PayPal sent it. An item's event is recorded for its run's job to apply (run-job.server.ts)
// and brings the job forward; the job weighs it against what it already knows, so an event sent
// twice, late or out of order changes nothing it should not.

export const WEBHOOK_MAX_BYTES = 64 * 1024;
const perShop = new FixedWindowCounter({ limit: 120, windowMs: 60_000 });

const Event = z.object({
  id: z.string().min(1).max(100),
  event_type: z.string().min(1).max(100),
  resource: z
    .object({
      payout_item_id: z.string().max(100).optional(),
      transaction_status: z.string().max(40).optional(),
      payout_item: z
        .object({ sender_item_id: z.string().max(100).optional() })
        .passthrough()
        .optional(),
      batch_header: z
        .object({
          sender_batch_header: z
            .object({ sender_batch_id: z.string().max(256).optional() })
            .passthrough()
            .optional(),
        })
        .passthrough()
        .optional(),
    })
    .passthrough(),
});

export interface WebhookAnswer {
  status: number;
  body: { outcome: string; message?: string };
}

const SHOP = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;

export async function receivePaypalWebhook(shop: string, request: Request, now = new Date()): Promise<WebhookAnswer> {
  const answer = (status: number, outcome: string, message?: string): WebhookAnswer => ({
    status,
    body: { outcome, message },
  });
  if (!SHOP.test(shop)) return answer(404, "unknown-shop");
  const wait = perShop.hit(shop, now.getTime());
  if (wait > 0) return answer(429, "rate-limited", `try again in ${Math.ceil(wait / 1000)} s`);
  const text = await readCapped(request, WEBHOOK_MAX_BYTES);
  if (text === null) return answer(413, "too-large");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return answer(400, "invalid", "the body is not JSON");
  }
  const parsed = Event.safeParse(json);
  if (!parsed.success) return answer(400, "invalid", "the body is not a PayPal webhook event");
  const event = parsed.data;
  const [known] = await sql.rows<{ outcome: string }>(
    Prisma.sql`SELECT ${PaypalEvent.outcome} FROM ${PaypalEvent} WHERE ${PaypalEvent.shop} = ${shop} AND ${PaypalEvent.eventId} = ${event.id}`,
  );
  if (known) return answer(200, "duplicate");
  let account;
  try {
    account = await paypalAccount(shop);
  } catch (error) {
    if (!(error instanceof SealError)) throw error;
  }
  if (!account?.webhookId) return answer(404, "not-configured", "this shop has no PayPal webhook saved");
  const headers = Object.fromEntries([...request.headers.entries()].filter(([name]) => name.startsWith("paypal-")));
  const verified = await createPaypalClient(account.origin, account.credentials).verifyWebhook({
    webhookId: account.webhookId,
    headers,
    event: json,
  });
  if (!verified.ok) return answer(503, "unverified", "PayPal could not be asked to verify it; send it again");
  if (!verified.value) {
    logger.warn("payouts.webhook_refused", "a PayPal webhook's signature did not verify", { shop, eventId: event.id });
    return answer(401, "forged");
  }
  return record(shop, event, now);
}

async function record(shop: string, event: z.infer<typeof Event>, now: Date): Promise<WebhookAnswer> {
  const resource = event.resource;
  const senderItemId = resource.payout_item?.sender_item_id ?? null;
  const senderBatchId = resource.batch_header?.sender_batch_header?.sender_batch_id ?? null;
  try {
    return await sql
      .transaction(async (tx) => {
        const [run] = senderItemId
          ? await tx.rows<{ runId: string }>(Prisma.sql`
            SELECT ${Payout.runId} FROM ${Payout} WHERE ${Payout.shop} = ${shop} AND ${Payout.id} = ${senderItemId} AND ${Payout.runId} IS NOT NULL`)
          : senderBatchId
            ? await tx.rows<{ runId: string }>(Prisma.sql`
              SELECT ${PayoutRun.id} AS "runId" FROM ${PayoutRun} WHERE ${PayoutRun.shop} = ${shop} AND ${PayoutRun.senderBatchId} = ${senderBatchId}`)
            : [];
        const item = Boolean(run && senderItemId && resource.transaction_status);
        const outcome = !run ? "ignored" : item ? "pending" : "nudged";
        await insertRows(tx, "PaypalEvent", [
          {
            shop,
            eventId: event.id,
            eventType: event.event_type,
            itemId: resource.payout_item_id ?? null,
            senderItemId,
            status: resource.transaction_status ?? null,
            outcome,
            receivedAt: now,
          },
        ]);
        if (run) await dueNow(tx, [{ shop, kind: "payout-run", subject: run.runId, runAt: now }], now);
        return { status: 200, body: { outcome } };
      })
      .then((answer) => {
        if (answer.body.outcome !== "ignored") wakeWorker();
        return answer;
      });
  } catch (error) {
    // The same event at once on two instances: the other recorded it.
    if (isUniqueViolation(error)) return { status: 200, body: { outcome: "duplicate" } };
    throw error;
  }
}
