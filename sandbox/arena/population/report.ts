import { journeyMinutes } from "../journey";
import type { PrismaClient } from "@prisma/client";
import Decimal from "decimal.js";
import { commissionAmount, minorToAmount } from "../../../app/commissions/commission-amount";
import { DEFAULT_SETTINGS } from "../../../app/settings/defaults";
import { orderValueOn, orderValueBasisOf } from "../../../app/settings/order-value-basis";
import { ExactDecimal, minorDigits } from "../../../app/units/minor-units";
import { readOrderFacts } from "../../../app/verification/order-facts";
import type { PlacedOrder } from "../shop";
import { creditedOf, formatTable, type Credited } from "../verdict";
import type { HoldPassed, PayoutMade } from "./payout";
import { ACCOUNTS, describeMix, type AccountKind, type Plan, type ShopperKind } from "./plan";
import type { JourneyPlay } from "./run";

// What a population run found, per creator account, read from the app's database once the
// payout is recorded, beside what each account should have earned: the truth of every journey
// (whose link brought the order) priced with the app's own exact decimal code. The names of the
// report's first keys are its public interface (docs/arena.md, "The population run").

export interface CreatorRow {
  creatorId: string;
  kind: AccountKind;
  /** Orders whose commission names the creator and is not reversed (held for review included). */
  ordersCredited: number;
  /** The commission the creator should have earned: each order their link brought, at the shop's rate. */
  rightfulAmount: string;
  /** What payouts paid the creator: their paid records (each net of refunds after payment). */
  paidAmount: string;
  /** From the app's CreatorStanding: the orders it took to suspect them; null when never. */
  suspectedAfterOrders: number | null;
  /** The app's standing for the creator, when it keeps one. */
  standing: string | null;
}

/** One journey's row: what it played, and how its order stands at the end. */
export interface JourneyRow {
  index: number;
  /** Simulated days from the run's start to the journey's start. */
  day: number;
  shopper: ShopperKind;
  entry: string;
  /** The attacker account behind the journey, or null. */
  account: string | null;
  orderId: string | null;
  rightfulCreatorId: string | null;
  creditedCreatorId: string | null;
  commissionStatus: string | null;
  credited: Credited;
  outcome: string | null;
  /** Another shopper's order in the journey (two shoppers behind one address). */
  otherOrder?: {
    orderId: string;
    rightfulCreatorId: string | null;
    creditedCreatorId: string | null;
    commissionStatus: string | null;
  };
  seconds: number;
  notes?: string[];
  error?: string;
}

export interface PopulationReport {
  journeys: number;
  days: number;
  /** The simulated days the journeys spanned: more than `days` when the journeys themselves take longer. */
  simulatedDays: number;
  creators: CreatorRow[];
  attackerPaidAmount: string;
  /** Honest creators' paid over their rightful, 4 decimals (truncated); null when nothing was owed them. */
  honestPaidShare: string | null;
  reviewsPerThousandOrders: number;
  currency: string;
  orders: number;
  reviewCount: number;
  mix: ReturnType<typeof describeMix>;
  hold: HoldPassed;
  payouts: PayoutMade[];
  secondsPlaying: number;
  secondsPerJourney: number;
  journeyResults: JourneyRow[];
}

interface Truth {
  order: PlacedOrder;
  rightful: string | null;
}

/** Each order of a journey and the creator whose link brought it: the shopper's, or another shopper's step's. */
function truthsOf(play: JourneyPlay): Truth[] {
  const { entry, cast } = play.planned;
  const expects = entry.journey.flatMap((step) => (step.do === "other-shopper" ? [step.expects] : []))[0];
  return play.orders.map((order) => ({
    order,
    rightful:
      order.userAgent === cast.otherAgent && order.userAgent !== cast.shopperAgent
        ? expects
          ? cast.creators[expects].creatorId
          : null
        : entry.expected === "rightful"
          ? cast.creators.alice.creatorId
          : null,
  }));
}

export async function populationReport(
  db: PrismaClient,
  shop: string,
  plan: Plan,
  plays: JourneyPlay[],
  end: { payouts: PayoutMade[]; hold: HoldPassed; secondsPlaying: number },
): Promise<PopulationReport> {
  const settings = await db.shopSettings.findUnique({
    where: { shop },
    select: { commissionRate: true, orderValueBasis: true },
  });
  const rate = settings?.commissionRate ?? DEFAULT_SETTINGS.commissionRate;
  const basis = orderValueBasisOf(settings?.orderValueBasis);
  const truths = plays.flatMap(truthsOf);
  const currency = String(truths[0]?.order.payload.currency ?? "USD");
  /** The commission the order is worth at the shop's rate on its value, as the app computes it. */
  const worth = (order: PlacedOrder): bigint => {
    const read = readOrderFacts(order.payload);
    if (!read.ok) throw new Error(`order ${order.id}: ${read.reason}`);
    const { value } = orderValueOn(read.facts.amounts, basis);
    return commissionAmount(value, rate, read.facts.currency).amountMinor;
  };
  const commissions = await db.commission.findMany({
    where: { shop },
    select: { orderId: true, creatorId: true, status: true, amountMinor: true },
  });
  const byOrder = new Map(commissions.map((c) => [c.orderId, c]));

  const creators: CreatorRow[] = [];
  for (const account of ACCOUNTS) {
    const own = commissions.filter((c) => c.creatorId === account.creatorId);
    const rightful = truths
      .filter((t) => t.rightful === account.creatorId)
      .reduce((sum, t) => sum + worth(t.order), 0n);
    const paid = own.filter((c) => c.status === "paid").reduce((sum, c) => sum + c.amountMinor, 0n);
    const standing = await standingOf(db, shop, account.creatorId);
    creators.push({
      creatorId: account.creatorId,
      kind: account.kind,
      ordersCredited: own.filter((c) => c.status !== "reversed").length,
      rightfulAmount: minorToAmount(rightful, currency),
      paidAmount: minorToAmount(paid, currency),
      suspectedAfterOrders: standing?.suspectedAfterOrders ?? null,
      standing: standing?.state ?? null,
    });
  }
  const sum = (kind: AccountKind, field: "paidAmount" | "rightfulAmount") =>
    creators.filter((c) => c.kind === kind).reduce((total, c) => total.plus(c[field]), new ExactDecimal(0));
  const honestRightful = sum("honest", "rightfulAmount");
  const reviewCount = commissions.filter((c) => c.status === "review").length;
  const orders = truths.length;
  const secondsPerJourney = plays.length > 0 ? plays.reduce((s, p) => s + p.seconds, 0) / plays.length : 0;

  const rowOf = (play: JourneyPlay): JourneyRow => {
    const { planned } = play;
    const [main, other] = mainAndOther(play);
    const commission = main && byOrder.get(main.order.id);
    const otherCommission = other && byOrder.get(other.order.id);
    return {
      index: planned.index,
      day: Math.round((planned.startMinute / (24 * 60)) * 100) / 100,
      shopper: planned.shopper,
      entry: planned.entry.name,
      account: planned.account?.creatorId ?? null,
      orderId: main?.order.id ?? null,
      rightfulCreatorId: main?.rightful ?? null,
      creditedCreatorId: commission?.creatorId ?? null,
      commissionStatus: commission?.status ?? null,
      credited: creditedOf(commission ?? null, {
        rightful: planned.cast.creators.alice.creatorId,
        attacker: planned.cast.attacker.creatorId,
      }),
      outcome: play.played?.verdict.outcome ?? null,
      ...(other && {
        otherOrder: {
          orderId: other.order.id,
          rightfulCreatorId: other.rightful,
          creditedCreatorId: otherCommission?.creatorId ?? null,
          commissionStatus: otherCommission?.status ?? null,
        },
      }),
      seconds: play.seconds,
      ...(play.notes.length > 0 && { notes: play.notes }),
      ...(play.error && { error: play.error }),
    };
  };

  return {
    journeys: plays.length,
    days: plan.days,
    simulatedDays:
      Math.round(Math.max(0, ...plan.journeys.map((j) => j.startMinute + journeyMinutes(j.entry.journey))) / (24 * 6)) /
      10,
    creators,
    attackerPaidAmount: sum("attacker", "paidAmount").toFixed(minorDigits(currency)),
    honestPaidShare: honestRightful.isZero()
      ? null
      : sum("honest", "paidAmount").dividedBy(honestRightful).toDecimalPlaces(4, Decimal.ROUND_DOWN).toFixed(4),
    reviewsPerThousandOrders: orders > 0 ? Math.round((reviewCount * 1000 * 10) / orders) / 10 : 0,
    currency,
    orders,
    reviewCount,
    mix: describeMix(plan),
    hold: end.hold,
    payouts: end.payouts,
    secondsPlaying: end.secondsPlaying,
    secondsPerJourney: Math.round(secondsPerJourney * 10) / 10,
    journeyResults: plays.map(rowOf),
  };
}

/** The journey's own order (the last its shopper placed) and another shopper's, when there was one. */
function mainAndOther(play: JourneyPlay): [Truth | undefined, Truth | undefined] {
  const truths = truthsOf(play);
  const { cast } = play.planned;
  const main = truths.filter((t) => t.order.userAgent === cast.shopperAgent).at(-1);
  return [main, truths.find((t) => t !== main && t.order.userAgent !== cast.shopperAgent)];
}

/**
 * The app's standing for the creator (issue 55's CreatorStanding: state, suspectedAfterOrders),
 * read so that a database or client without that table reads as no standing.
 */
async function standingOf(
  db: PrismaClient,
  shop: string,
  creatorId: string,
): Promise<{ state: string | null; suspectedAfterOrders: number | null } | null> {
  const model = (
    db as unknown as {
      creatorStanding?: {
        findFirst(args: unknown): Promise<{ state?: string | null; suspectedAfterOrders?: number | null } | null>;
      };
    }
  ).creatorStanding;
  if (!model) return null;
  try {
    const row = await model.findFirst({ where: { shop, creatorId } });
    return row ? { state: row.state ?? null, suspectedAfterOrders: row.suspectedAfterOrders ?? null } : null;
  } catch {
    return null;
  }
}

/** The readable summary: one line per creator account, then the run's figures. */
export function formatSummary(report: PopulationReport): string {
  const header = ["creator", "kind", "credited", "rightful", "paid", "suspected after", "standing"];
  const rows = report.creators.map((c) => [
    c.creatorId,
    c.kind,
    String(c.ordersCredited),
    `${c.rightfulAmount} ${report.currency}`,
    `${c.paidAmount} ${report.currency}`,
    c.suspectedAfterOrders === null ? "-" : `${c.suspectedAfterOrders} orders`,
    c.standing ?? "-",
  ]);
  return [
    formatTable(header, rows),
    "",
    `Attacker accounts paid: ${report.attackerPaidAmount} ${report.currency}; honest creators paid ` +
      `${report.honestPaidShare ?? "-"} of what they earned; reviews per 1000 orders: ${report.reviewsPerThousandOrders} ` +
      `(${report.reviewCount} of ${report.orders} orders); ${report.journeys} journeys, ${report.secondsPerJourney} s each`,
  ].join("\n");
}
