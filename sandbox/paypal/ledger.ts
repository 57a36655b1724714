// The PayPal stand-in's memory: clients and their tokens, batches by sender_batch_id, items and
// their planned ends, webhooks and how their signatures are made. Plain data; server.ts answers
// over HTTP from it.
import { createHmac, randomBytes } from "node:crypto";

export type ItemStatus =
  "PENDING" | "SUCCESS" | "UNCLAIMED" | "RETURNED" | "FAILED" | "BLOCKED" | "REFUNDED" | "ONHOLD";

export interface StandinItem {
  payoutItemId: string;
  senderItemId: string;
  receiver: string;
  value: string;
  currency: string;
  /** What PayPal shows the receiver with the payment (the sender's note). */
  note: string;
  status: ItemStatus;
}

export interface StandinBatch {
  batchId: string;
  clientId: string;
  senderBatchId: string;
  /** The subject of the email PayPal sends each receiver. */
  emailSubject: string;
  status: "PENDING" | "PROCESSING" | "SUCCESS" | "DENIED";
  items: StandinItem[];
  createdAt: string;
}

/** Event type PayPal sends for an item reaching each status. */
export const ITEM_EVENTS: Partial<Record<ItemStatus, string>> = {
  SUCCESS: "PAYMENT.PAYOUTS-ITEM.SUCCEEDED",
  UNCLAIMED: "PAYMENT.PAYOUTS-ITEM.UNCLAIMED",
  RETURNED: "PAYMENT.PAYOUTS-ITEM.RETURNED",
  FAILED: "PAYMENT.PAYOUTS-ITEM.FAILED",
  BLOCKED: "PAYMENT.PAYOUTS-ITEM.BLOCKED",
  REFUNDED: "PAYMENT.PAYOUTS-ITEM.REFUNDED",
  ONHOLD: "PAYMENT.PAYOUTS-ITEM.HELD",
};

const id = (length = 13) => randomBytes(16).toString("base64url").replace(/[-_]/g, "X").toUpperCase().slice(0, length);

export class PaypalLedger {
  readonly clients = new Map<string, string>();
  readonly tokens = new Map<string, { clientId: string; expiresAt: number }>();
  readonly batches = new Map<string, StandinBatch>();
  /** receiver email -> the status its items end in (SUCCESS when not named). */
  readonly plannedEnds = new Map<string, ItemStatus>();
  readonly webhooks = new Map<string, { url: string; clientId: string }>();
  /** The stand-in's signing key for webhooks: verify-webhook-signature checks against it. */
  readonly signingKey = randomBytes(32);

  addClient(clientId = `standin-client-${id(8)}`, secret = `standin-secret-${id(24)}`) {
    this.clients.set(clientId, secret);
    return { clientId, secret };
  }

  issueToken(clientId: string, now: number): { token: string; expiresIn: number } {
    const token = `A21AA${id(40)}`;
    this.tokens.set(token, { clientId, expiresAt: now + 32_400_000 });
    return { token, expiresIn: 32_400 };
  }

  bearer(header: string | undefined, now: number): string | null {
    const token = /^Bearer (\S+)$/.exec(header ?? "")?.[1];
    const known = token ? this.tokens.get(token) : undefined;
    return known && known.expiresAt > now ? known.clientId : null;
  }

  batchBySender(clientId: string, senderBatchId: string): StandinBatch | undefined {
    return [...this.batches.values()].find((b) => b.clientId === clientId && b.senderBatchId === senderBatchId);
  }

  createBatch(
    clientId: string,
    senderBatchId: string,
    items: Omit<StandinItem, "payoutItemId" | "status">[],
    now: number,
    emailSubject = "",
  ) {
    const batch: StandinBatch = {
      batchId: id(),
      clientId,
      senderBatchId,
      emailSubject,
      status: "PENDING",
      items: items.map((item) => ({ ...item, payoutItemId: id(), status: "PENDING" })),
      createdAt: new Date(now).toISOString(),
    };
    this.batches.set(batch.batchId, batch);
    return batch;
  }

  registerWebhook(url: string, clientId: string): string {
    const webhookId = `WH-${id(17)}`;
    this.webhooks.set(webhookId, { url, clientId });
    return webhookId;
  }

  /** The stand-in's transmission signature: HMAC-SHA256 over id|time|webhook id|body, base64. */
  sign(transmissionId: string, time: string, webhookId: string, body: string): string {
    return createHmac("sha256", this.signingKey)
      .update(`${transmissionId}|${time}|${webhookId}|${body}`)
      .digest("base64");
  }
}
