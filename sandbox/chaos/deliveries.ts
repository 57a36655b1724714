import { DEFAULT_API_VERSION, webhookHeaders } from "../shopify";
import type { Random } from "../seeded-random";
import type { PlannedOrder } from "./orders";

// Webhooks as Shopify sends them under trouble: every event two or three times at once (its
// retries and duplicates), the events of different orders in no particular order, and each
// copy sent again, to whichever instance is up, until one answers 200, as Shopify retries.

export interface WebhookEvent {
  shop: string;
  topic: string;
  /** The app's route for the topic (shopify.app.toml). */
  path: string;
  /** Shopify's event id, the same on every copy and retry. */
  eventId: string;
  body: string;
}

/**
 * The topics each order sends, in the order they happen (the run shuffles them with the other
 * orders' events, so a refund or cancellation may well reach the app before its order).
 */
export const ORDER_TOPICS: readonly {
  topic: string;
  path: string;
  events(order: PlannedOrder): { eventId: string; payload: unknown }[];
}[] = [
  {
    topic: "orders/create",
    path: "/webhooks/orders/create",
    events: (order) => [{ eventId: `chaos-create-${order.payload.id}`, payload: order.payload }],
  },
  {
    topic: "orders/edited",
    path: "/webhooks/orders/edited",
    events: (order) => (order.edit ? [{ eventId: `chaos-edit-${order.edit.id}`, payload: order.edit.payload }] : []),
  },
  {
    topic: "refunds/create",
    path: "/webhooks/refunds/create",
    events: (order) =>
      order.refunds.map((refund) => ({ eventId: `chaos-refund-${refund.id}`, payload: refund.payload })),
  },
  {
    topic: "orders/cancelled",
    path: "/webhooks/orders/cancelled",
    events: (order) =>
      order.cancellation ? [{ eventId: `chaos-cancel-${order.payload.id}`, payload: order.cancellation }] : [],
  },
];

export function eventsOf(order: PlannedOrder): WebhookEvent[] {
  return ORDER_TOPICS.flatMap(({ topic, path, events }) =>
    events(order).map(({ eventId, payload }) => ({
      shop: order.shop,
      topic,
      path,
      eventId,
      body: JSON.stringify(payload),
    })),
  );
}

export interface Sender {
  /** A live instance's base URL, or null while none is up. */
  pickInstance(): string | null;
  apiSecret: string;
}

export interface DeliveryCounts {
  /** Every POST sent, copies and re-sends included. */
  sent: number;
  /** Copies that never got a 200: refused (4xx) or out of attempts. The order may then be lost. */
  abandoned: number;
  /** Answers by status ("connection" when none came). */
  answers: Record<string, number>;
}

/** Attempts per copy before it is abandoned; Shopify itself retries for hours. */
const MAX_SENDS_PER_COPY = 30;
/** Longest wait for an answer; an instance killed mid-request never gives one. */
const ANSWER_TIMEOUT_MS = 30_000;

export async function deliverCopies(
  sender: Sender,
  event: WebhookEvent,
  copies: number,
  counts: DeliveryCounts,
): Promise<void> {
  // Identical copies (same headers, same body), all at once: what Shopify's duplicates look like.
  const headers = webhookHeaders({
    topic: event.topic,
    shop: event.shop,
    apiVersion: DEFAULT_API_VERSION,
    body: event.body,
    secret: sender.apiSecret,
    eventId: event.eventId,
    webhookId: `${event.eventId}-webhook`,
  });
  await Promise.all(Array.from({ length: copies }, () => deliverOne(sender, event, headers, counts)));
}

async function deliverOne(
  sender: Sender,
  event: WebhookEvent,
  headers: Record<string, string>,
  counts: DeliveryCounts,
): Promise<void> {
  for (let attempt = 1; attempt <= MAX_SENDS_PER_COPY; attempt++) {
    const instance = sender.pickInstance();
    let answer = "no-instance";
    if (instance) {
      counts.sent += 1;
      try {
        const response = await fetch(`${instance}${event.path}`, {
          method: "POST",
          headers,
          body: event.body,
          signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        answer = String(response.status);
      } catch {
        answer = "connection";
      }
      counts.answers[answer] = (counts.answers[answer] ?? 0) + 1;
      if (answer === "200") return;
      // A refusal (a signature or payload the app rejects) will not change on a retry.
      if (answer.startsWith("4")) break;
    }
    // Shopify backs off between retries; a short pause lets a restarting instance come up.
    await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** Math.min(attempt, 6))));
  }
  counts.abandoned += 1;
}

/** Fisher-Yates, on the run's seeded random source. */
export function shuffle<T>(items: T[], random: Random): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
