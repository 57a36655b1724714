import { randomUUID } from "node:crypto";
import { databaseClient } from "../../app/database/db.server";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { seedSuspectedCreator } from "./suspected-creator";
import { orderRow } from "./order-row";

const prisma = databaseClient();

// A shop as a merchant sees it after a few weeks: settings saved, matched and hijacked orders
// with their commissions at each stage, a failed verification, a discount code that rode on a
// hijack, a payout already recorded. The accessibility test and `npm run screenshots` open
// every admin page on it, and on a shop with nothing at all, so each page is seen both ways.
// Written straight to the database the app reads (DATABASE_URL), as the browser suites seed.

export interface SeededShop {
  /** The verification id of a hijacked order (its page has a commission, a code, a tag). */
  hijackedOrder: string;
  /** The verification id of an order whose verification failed (its page offers Retry now). */
  failedOrder: string;
  /** The verification id of a contested order: its commission in review, its claims on its page. */
  contestedOrder: string;
  /** A creator the rule suspects (suspected-creator.ts): their page shows the evidence and the decisions. */
  suspectedCreator: string;
}

const DAY = 86_400_000;

export async function seedShopWithData(
  shop: string,
  service: { clickServiceUrl: string; apiKey: string },
  firstOrder = 1001,
): Promise<SeededShop> {
  const saved = await saveSettings(shop, service);
  if (!saved.ok) throw new Error(`settings were refused: ${JSON.stringify(saved.errors)}`);
  let orderNumber = firstOrder;

  const order = async (fields: {
    outcome: "matched" | "hijacked" | "failed";
    creatorId: string;
    daysAgo: number;
    commission?: { status: string; minor: bigint };
    code?: [string, string];
  }) => {
    const orderId = String(orderNumber++);
    const at = new Date(Date.now() - fields.daysAgo * DAY);
    const expectedTag = `${fields.creatorId.replace("cr_", "")}-20`;
    const arrivedTag = fields.outcome === "hijacked" ? "honey-77" : expectedTag;
    const verification = await prisma.verification.create({
      data: {
        ...orderRow(shop, orderId, at),
        outcome: fields.outcome,
        captureSource: "cart_attributes",
        clickId: `clk-${orderId}`,
        arrivedTag,
        capturedAt: at,
        currency: "USD",
        orderValue: "125.00",
        ...(fields.outcome === "failed"
          ? {
              lastError: "Could not reach the service: the connection was refused",
              deadlineAt: new Date(at.getTime() + 30 * DAY),
            }
          : {
              expectedTag,
              creatorId: fields.creatorId,
              verdict: fields.outcome,
              hijacked: fields.outcome === "hijacked",
            }),
        ...(fields.outcome === "hijacked" ? { taggedAt: at } : {}),
        orderFacts: "{}",
      },
    });
    await prisma.job.create({
      data: {
        id: `job-${verification.id}`,
        shop,
        kind: "verify-order",
        subject: verification.id,
        // A verification that failed has a job that gave up: done, as the queue ends it.
        state: "done",
        runAt: at,
      },
    });
    if (fields.code) {
      const [code, amount] = fields.code;
      await prisma.orderDiscountCode.create({
        data: {
          id: randomUUID(),
          shop,
          verificationId: verification.id,
          orderId,
          code,
          amount,
          amountMinor: BigInt(amount.replace(".", "")),
          type: "fixed_amount",
          currency: "USD",
          createdAt: at,
        },
      });
    }
    if (fields.commission) {
      const { status, minor } = fields.commission;
      const amount = (Number(minor) / 100).toFixed(2);
      await prisma.commission.create({
        data: {
          shop,
          verificationId: verification.id,
          orderId,
          orderName: `#${orderId}`,
          creatorId: fields.creatorId,
          expectedTag,
          arrivedTag,
          orderValue: "125.00",
          currency: "USD",
          rate: "10",
          amount,
          amountMinor: minor,
          status,
          redirected: fields.outcome === "hijacked",
          holdUntil: new Date(at.getTime() + 30 * DAY),
          createdAt: at,
          entries: { create: [{ shop, kind: "credit", amountMinor: minor, amount, createdAt: at }] },
        },
      });
    }
    return verification.id;
  };

  await order({
    outcome: "matched",
    creatorId: "cr_alice",
    daysAgo: 6,
    commission: { status: "approved", minor: 1250n },
  });
  const hijackedOrder = await order({
    outcome: "hijacked",
    creatorId: "cr_alice",
    daysAgo: 4,
    commission: { status: "approved", minor: 800n },
    code: ["LEAKED20", "20.00"],
  });
  await order({
    outcome: "hijacked",
    creatorId: "cr_bob",
    daysAgo: 3,
    commission: { status: "pending", minor: 950n },
    code: ["LEAKED20", "5.50"],
  });
  await order({ outcome: "matched", creatorId: "cr_bob", daysAgo: 2, commission: { status: "pending", minor: 1100n } });
  await order({ outcome: "matched", creatorId: "cr_carol", daysAgo: 20, commission: { status: "paid", minor: 1500n } });
  const failedOrder = await order({ outcome: "failed", creatorId: "cr_alice", daysAgo: 1 });
  // The storefront's reports for its cart named alice's click and then bob's, and Shopify recorded
  // no landing page to settle it: held for the merchant (docs/attribution.md).
  const contestedOrder = await order({
    outcome: "matched",
    creatorId: "cr_alice",
    daysAgo: 1,
    commission: { status: "review", minor: 1250n },
  });
  const contestedAt = new Date(Date.now() - DAY).toISOString();
  const contested = await prisma.verification.findUniqueOrThrow({ where: { id: contestedOrder } });
  const bobClick = `clk-${contested.orderId}-bob`;
  await prisma.verification.update({
    where: { id: contestedOrder },
    data: {
      contest: JSON.stringify({
        reason: "creators-differ",
        claims: [
          {
            clickId: contested.clickId,
            creatorId: "cr_alice",
            witnesses: ["landing"],
            firstSeenAt: contestedAt,
            arrivedTag: "alice-20",
          },
          {
            clickId: bobClick,
            creatorId: "cr_bob",
            witnesses: ["landing", "cart_attributes"],
            firstSeenAt: contestedAt,
            arrivedTag: "bob-20",
          },
        ],
      }),
    },
  });
  await prisma.clickRecord.create({
    data: {
      id: randomUUID(),
      shop,
      clickId: bobClick,
      state: "known",
      expectedTag: "bob-20",
      creatorId: "cr_bob",
      firstSeenAt: new Date(contestedAt),
    },
  });

  await prisma.payout.create({
    data: {
      shop,
      idempotencyKey: randomUUID(),
      reference: "Wire 1042",
      paidOn: new Date(Date.now() - 10 * DAY),
      lines: { create: [{ creatorId: "cr_carol", currency: "USD", amountMinor: 1500n, amount: "15.00", records: 1 }] },
    },
  });
  // A creator account an extension pays, suspected by the rule; its orders come after the
  // others, and it has nothing approved, so every balance on Payouts can still be paid.
  const suspected = await seedSuspectedCreator(shop, { firstOrder: firstOrder + 100 });
  return { hijackedOrder, failedOrder, contestedOrder, suspectedCreator: suspected.attacker };
}
