import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { dialect } from "../../app/db.server";
import { recordOrderDelivery } from "../../app/verification/intake.server";
import type { VerifiedDelivery } from "../../app/webhooks/receive.server";
import { orderPayload } from "../support/fixtures";

// Intake on several instances sharing PostgreSQL: another instance records copies of the same
// events while a group is being written. The chaos run found groups failing with 500 after a
// kill -9, when the retried copies of a whole batch arrive at both instances at once. Here the
// other instance is a connection holding uncommitted rows, committed one at a time while the
// group waits on them: deterministic, where the chaos run needed luck. SQLite has one writer
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
    apiVersion: "2026-07",
    webhookId: `${eventId}-webhook`,
    eventId,
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

/** Resolves once some statement in this database waits for another transaction's lock. */
async function somethingWaits(): Promise<void> {
  const probe = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await probe.connect();
  try {
    for (;;) {
      const { rows } = await probe.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0].waiting > 0) return;
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
});
