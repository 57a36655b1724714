import { randomUUID } from "node:crypto";
import { TAMPERING_SIGNALS, type EvidenceSignal } from "../../app/attribution/creator-evidence";
import { recordCreatorEvidence } from "../../app/creators/evidence.server";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { orderRow } from "./order-row";

const prisma = databaseClient();

// A creator account an extension pays, as the app records it after a few of its orders: its
// clicks named by orders another creator's click took (one through a script no page landed
// with), an order its click took from an honest creator whose click the order named too, and
// the rule suspecting it. The orders and clicks are written as the pipeline leaves them; the
// claims and the suspicion go through the app's own evidence module (recordCreatorEvidence),
// which weighs the creator by the rule as an order's verification does. The screenshots, the
// accessibility run and the admin tests read it (docs/admin.md, "Creators").

const DAY = 86_400_000;
const MINUTE = 60_000;

export interface SuspectedCreatorSeed {
  attacker: string;
  honest: string;
  /** Orders the honest creator's click took, with the attacker's click named and standing down. */
  stoodDown: string[];
  /** The order the attacker's click took, which named the honest creator's click too (pending). */
  taken: string;
  /** Another order credited to the attacker, approved and named by nobody else (with `approved`). */
  approved: string | null;
  /** A contested order (in review) naming both creators (with `contested`). */
  contested: string | null;
}

export async function seedSuspectedCreator(
  shop: string,
  options: {
    attacker?: string;
    honest?: string;
    firstOrder: number;
    approved?: boolean;
    contested?: boolean;
    now?: Date;
  },
): Promise<SuspectedCreatorSeed> {
  const attacker = options.attacker ?? "cr_mallory";
  const honest = options.honest ?? "cr_dana";
  const now = options.now ?? new Date();
  let orderNumber = options.firstOrder;
  const tagOf = (creatorId: string) => `${creatorId.replace("cr_", "")}-20`;

  const click = async (clickId: string, creatorId: string, orderAt: Date, delayMs: number) => {
    const clickedAt = new Date(orderAt.getTime() - 10 * MINUTE);
    await prisma.clickRecord.create({
      data: {
        id: randomUUID(),
        shop,
        clickId,
        state: "known",
        expectedTag: tagOf(creatorId),
        creatorId,
        clickedAt,
        lookedUpAt: new Date(clickedAt.getTime() + delayMs + 1_000),
        firstSeenAt: new Date(clickedAt.getTime() + delayMs),
      },
    });
  };

  const order = async (fields: {
    daysAgo: number;
    credited: string;
    status: string;
    /** How long the credited click took to reach the app after the service's click time. */
    delayMs: number;
  }) => {
    const orderId = String(orderNumber++);
    const at = new Date(now.getTime() - fields.daysAgo * DAY);
    const clickId = `clk-${orderId}-${fields.credited.replace("cr_", "")}`;
    const tag = tagOf(fields.credited);
    await click(clickId, fields.credited, at, fields.delayMs);
    const verification = await prisma.verification.create({
      data: {
        ...orderRow(shop, orderId, at),
        outcome: "matched",
        captureSource: "app_proxy",
        clickId,
        arrivedTag: tag,
        expectedTag: tag,
        creatorId: fields.credited,
        verdict: "matched",
        hijacked: false,
        verdictSource: "service",
        capturedAt: at,
        currency: "USD",
        orderValue: "100.00",
        orderFacts: "{}",
      },
    });
    await prisma.job.create({
      data: {
        id: `job-${verification.id}`,
        shop,
        kind: "verify-order",
        subject: verification.id,
        state: "done",
        runAt: at,
      },
    });
    await prisma.commission.create({
      data: {
        shop,
        verificationId: verification.id,
        orderId,
        orderName: `#${orderId}`,
        creatorId: fields.credited,
        expectedTag: tag,
        arrivedTag: tag,
        orderValue: "100.00",
        currency: "USD",
        rate: "10",
        amount: "10.00",
        amountMinor: 1000n,
        status: fields.status,
        holdUntil: new Date(at.getTime() + 30 * DAY),
        approvedAt: fields.status === "approved" ? at : null,
        createdAt: at,
        entries: { create: [{ shop, kind: "credit", amountMinor: 1000n, amount: "10.00", createdAt: at }] },
      },
    });
    return { id: verification.id, orderId, orderName: `#${orderId}`, orderAt: at };
  };

  /** The order named the creator's click without crediting it: what its judgement records. */
  const claim = async (
    named: Awaited<ReturnType<typeof order>>,
    creatorId: string,
    fields: { outcome: "stood-down" | "contested"; signals: EvidenceSignal[]; delayMs: number },
    also: { creatorId: string; clickId: string }[] = [],
  ) => {
    const clickId = `clk-${named.orderId}-${creatorId.replace("cr_", "")}`;
    await click(clickId, creatorId, named.orderAt, fields.delayMs);
    const tampering = fields.signals.some((s) => TAMPERING_SIGNALS.has(s));
    await sql.transaction((tx) =>
      recordCreatorEvidence(
        tx,
        { shop, verificationId: named.id, orderId: named.orderId, orderName: named.orderName, orderAt: named.orderAt },
        [
          ...also.map((other) => ({
            creatorId: other.creatorId,
            clickIds: [other.clickId],
            outcome: fields.outcome,
            signals: fields.signals.filter((s) => s === "contested"),
            tampering: false,
          })),
          { creatorId, clickIds: [clickId], outcome: fields.outcome, signals: fields.signals, tampering },
        ],
        now,
      ),
    );
  };

  // The attacker's own orders first: the rule reads them when the claims come.
  const taken = await order({ daysAgo: 3, credited: attacker, status: "pending", delayMs: 5 * MINUTE });
  const approved = options.approved
    ? await order({ daysAgo: 2, credited: attacker, status: "approved", delayMs: 4 * MINUTE })
    : null;
  const first = await order({ daysAgo: 6, credited: honest, status: "pending", delayMs: 2_000 });
  const second = await order({ daysAgo: 5, credited: honest, status: "pending", delayMs: 3_000 });
  await claim(taken, honest, { outcome: "stood-down", signals: ["later"], delayMs: 2_000 });
  await claim(first, attacker, { outcome: "stood-down", signals: ["not-a-landing", "later"], delayMs: 3 * MINUTE });
  await claim(second, attacker, { outcome: "stood-down", signals: ["later"], delayMs: 40_000 });
  let contested: string | null = null;
  if (options.contested) {
    const held = await order({ daysAgo: 1, credited: honest, status: "review", delayMs: 2_000 });
    await claim(held, attacker, { outcome: "contested", signals: ["contested"], delayMs: 2 * MINUTE }, [
      { creatorId: honest, clickId: `clk-${held.orderId}-${honest.replace("cr_", "")}` },
    ]);
    contested = held.id;
  }
  return {
    attacker,
    honest,
    stoodDown: [first.id, second.id],
    taken: taken.id,
    approved: approved?.id ?? null,
    contested,
  };
}
