import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { databaseClient, dialect } from "../../app/database/db.server";
import { recordOrderDelivery } from "../../app/verification/intake.server";
import type { VerifiedDelivery } from "../../app/webhooks/receive.server";
import { buildRefundCreatePayload } from "../../sandbox/shopify/refund-payload";
import { API_VERSION } from "../support/deliver";
import { orderPayload } from "../support/fixtures";

const prisma = databaseClient();

// Intake on several instances sharing PostgreSQL: another instance records copies of the same
// events while a group is being written. The chaos run found groups failing with 500 after a
// kill -9, when the retried copies of a whole batch arrive at both instances at once. Here the
// other instance is a connection holding uncommitted rows, committed one at a time while the
// group waits on them: deterministic, where the chaos run needed luck. It also found an order
// and its refund recorded at once by two instances, neither seeing the other, and the refund
// never applied; here table locks held elsewhere force that interleaving. SQLite has one writer
// and one instance, so there is no such race there.

const SHOP = "intake-races.myshopify.com";
const holders: pg.Client[] = [];

afterEach(async () => {
  await Promise.all(holders.splice(0).map((client) => client.end().catch(() => {})));
});

function delivery(eventId: string): VerifiedDelivery {
  const payload = orderPayload();
  return {
    shop: SHOP,
    topic: "orders/create",
    apiVersion: API_VERSION,
    webhookId: `${eventId}-webhook`,
    eventId,
    triggeredAt: null,
    payload,
    bodySlice: JSON.stringify(payload).slice(0, 100),
    rawBody: JSON.stringify(payload),
  };
}

/** Another instance's transaction that has written the delivery row for `eventId` and not committed yet. */
async function otherInstanceWriting(eventId: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  holders.push(client);
  await client.connect();
  await client.query("BEGIN");
  await client.query(
    `INSERT INTO "WebhookDelivery" ("id", "shop", "topic", "eventId", "status") VALUES ($1, $2, 'orders/create', $3, 'recorded')`,
    [`other-${eventId}`, SHOP, eventId],
  );
  return client;
}

/** Resolves once `count` statements in this database wait for another transaction's lock. */
async function somethingWaits(count = 1): Promise<void> {
  const probe = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await probe.connect();
  try {
    for (;;) {
      const { rows } = await probe.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0].waiting >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await probe.end();
  }
}

describe.runIf(dialect === "postgresql")("recording deliveries while another instance records their copies", () => {
  it("records none twice and fails none, however often the group loses the race", async () => {
    const events = ["race-1", "race-2", "race-3"];
    const others = await Promise.all(events.map(otherInstanceWriting));
    // One group: all three reach the intake in the same tick.
    const results = Promise.allSettled(events.map((eventId) => recordOrderDelivery(delivery(eventId))));
    // Each time the group waits on one of the other instance's rows, that row is committed:
    // the group's insert fails on it, and the next try waits on the next one.
    for (const other of others) {
      await somethingWaits();
      await other.query("COMMIT");
    }
    expect(await results).toEqual(events.map(() => ({ status: "fulfilled", value: { status: "duplicate-delivery" } })));
  });

  it("an order and its refund recorded by two instances at once: the order's job runs again for the refund", async () => {
    const order = orderPayload({ shop: SHOP });
    const refund = buildRefundCreatePayload({
      orderId: order.id,
      currency: String(order.currency),
      lines: [{ price: "5.00" }],
    });
    const refundDelivery: VerifiedDelivery = {
      ...delivery(`race-refund-${String(refund.id)}`),
      topic: "refunds/create",
      payload: refund,
      rawBody: JSON.stringify(refund),
    };
    const orderDelivery: VerifiedDelivery = { ...delivery(`race-order-${order.id}`), payload: order };
    orderDelivery.rawBody = JSON.stringify(order);
    // The second instance: the intake module again, with its own group of its own.
    vi.resetModules();
    const secondInstance = await import("../../app/verification/intake.server");

    // The worst interleaving: each group reads the database before the other's rows are there,
    // and the order's group asks for its refunds before the refund's group has committed. Two
    // table locks held by other connections hold each group at the right write.
    const gate = async (table: string) => {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      holders.push(client);
      await client.connect();
      await client.query("BEGIN");
      await client.query(`LOCK TABLE "${table}" IN SHARE MODE`);
      return client;
    };
    const deliveriesGate = await gate("WebhookDelivery");
    const eventsGate = await gate("OrderEvent");
    const orderResult = recordOrderDelivery(orderDelivery);
    const refundResult = secondInstance.recordOrderEventDelivery(refundDelivery);
    await somethingWaits(2);
    await deliveriesGate.query("COMMIT");
    expect(await orderResult).toMatchObject({ status: "queued" });
    await eventsGate.query("COMMIT");
    expect(await refundResult).toMatchObject({ status: "recorded" });

    const verification = await prisma.verification.findFirstOrThrow({
      where: { shop: SHOP, orderId: String(order.id) },
    });
    const job = await prisma.job.findFirstOrThrow({ where: { kind: "verify-order", subject: verification.id } });
    // Queued, and flagged to run once more after it ends: that run applies the refund.
    expect(job).toMatchObject({ state: "queued", rerun: true });
  });
});
