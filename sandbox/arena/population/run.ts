import { deliverOrders, playJourney, type JourneyPlayed } from "../play";
import { openShop, type Arena, type ArenaShop, type PlacedOrder } from "../shop";
import { passTime } from "../time";
import { holdPasses, payEveryBalance } from "./payout";
import { formatMix, planPopulation, type PlannedJourney } from "./plan";
import { populationReport, type PopulationReport } from "./report";

// `npm run arena -- --population N --days D`: N shoppers on one shop over D simulated days, as
// a shop's traffic is, with honest creators, attacker accounts and organic shoppers mixed
// (plan.ts). The shop is installed once, as the arena installs each of its own; each journey is
// a fresh shopper (a browser profile, a browser build and a network address of their own)
// playing a catalogue journey with the plan's accounts in its roles, through the same code the
// arena plays (play.ts), the attacks with the same extension. Between journeys the shop's
// records age by the plan's gap (time.ts), so the app, on the real clock, sees them days apart;
// journeys share the shop's caps and its network-source rules, which is the point. Then every
// order has its outcome, the hold passes, and the merchant pays every payable balance.

const DAY_MINUTES = 24 * 60;

export interface PopulationOptions {
  journeys: number;
  days: number;
  seed: number;
  log: (line: string) => void;
}

/** One journey as played: its plan, what it placed and how it ended. */
export interface JourneyPlay {
  planned: PlannedJourney;
  played: JourneyPlayed | null;
  /** Every order the journey placed (on an error too). */
  orders: PlacedOrder[];
  seconds: number;
  notes: string[];
  error?: string;
}

export interface PopulationRun {
  report: PopulationReport;
  /** Journeys that could not be played (the run fails on any). */
  errors: number;
}

export async function runPopulation(arena: Arena, options: PopulationOptions): Promise<PopulationRun> {
  const { log } = options;
  const plan = planPopulation(options.journeys, options.days, options.seed);
  log(formatMix(plan));
  const started = Date.now();
  const shop = await openShop(arena, "arena-population.myshopify.com");
  try {
    log(`Playing ${plan.journeys.length} journeys on ${shop.shop} over ${options.days} simulated days`);
    const plays: JourneyPlay[] = [];
    for (const planned of plan.journeys) {
      if (planned.gapMinutes > 0) await passTime(shop.records, planned.gapMinutes);
      const play = await playPlanned(arena, shop, planned);
      plays.push(play);
      log(
        `  ${String(planned.index + 1).padStart(3)} day ${(planned.startMinute / DAY_MINUTES).toFixed(1).padStart(5)}  ` +
          `${planned.shopper.padEnd(12)} ${planned.entry.name.padEnd(34)} ${whoPlayed(planned).padEnd(28)} ` +
          `${play.played ? `${play.played.verdict.commission?.creatorId ?? "nobody"} (${play.played.verdict.commission?.status ?? "-"})` : "-"}` +
          `${play.error ? ` ERROR: ${play.error}` : ""}  ${play.seconds} s`,
      );
    }
    const played = (Date.now() - started) / 1000;
    // Shopify sends every order's orders/create, whatever happened to the journey's browser.
    await deliverOrders(arena.stack, shop.shop, shop.orders);
    const hold = await holdPasses(shop);
    log(
      `The hold passed (${hold.holdDays} days): ${hold.approved} records approved` +
        (hold.waitingDue > 0 ? `, ${hold.waitingDue} past their hold still pending` : ""),
    );
    const payouts = await payEveryBalance(arena.stack, shop.shop);
    log(
      payouts.length === 0
        ? "Nothing was payable: no payout"
        : `Paid: ${payouts.map((p) => `${p.lines.length} balances, ${p.total} ${p.currency}`).join("; ")}`,
    );
    const report = await populationReport(arena.stack.db, shop.shop, plan, plays, {
      payouts,
      hold,
      secondsPlaying: Math.round(played),
    });
    return { report, errors: plays.filter((p) => p.error).length };
  } finally {
    await shop.storefront.stop().catch(() => undefined);
  }
}

async function playPlanned(arena: Arena, shop: ArenaShop, planned: PlannedJourney): Promise<JourneyPlay> {
  const started = Date.now();
  const notes: string[] = [];
  const from = shop.orders.length;
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  try {
    const played = await playJourney(arena, shop, planned.entry, planned.cast, notes);
    if (played.othersWrong) notes.push(played.othersWrong);
    return { planned, played, orders: played.orders, seconds: seconds(), notes };
  } catch (error) {
    return {
      planned,
      played: null,
      orders: shop.orders.slice(from),
      seconds: seconds(),
      notes,
      error: (error as Error).message.split("\n")[0]!,
    };
  }
}

/** Who stood behind the journey: its attacker account, else the creator the shopper followed. */
function whoPlayed(planned: PlannedJourney): string {
  const followed = planned.entry.expected === "rightful" ? planned.cast.creators.alice.creatorId : null;
  if (planned.account) return followed ? `${planned.account.creatorId} vs ${followed}` : planned.account.creatorId;
  return followed ? `via ${followed}` : "-";
}
