import { deriveSeed, seededRandom, type Random } from "../../seeded-random";
import { OTHER_AGENT, type Cast, type Creator } from "../cast";
import { CATALOGUE } from "../catalogue";
import type { Entry } from "../entry";
import { journeyMinutes } from "../journey";

// The population run's plan, drawn from its seed before anything is played: who the shoppers
// are, which catalogue journey each plays, which accounts stand behind the journey's creator
// roles and its attacker, and how much simulated time passes before each. The same seed and
// size give the same plan, so a run that went wrong can be played again.

export type AccountKind = "honest" | "attacker" | "rewrite-only";
export type ShopperKind = "organic" | "honest" | "attacker" | "rewrite-only";

export interface Account extends Creator {
  kind: AccountKind;
}

/** Honest creators: each honest journey's rightful role, and its second creator where it has one. */
export const HONEST_ACCOUNTS: readonly Account[] = [
  { creatorId: "cr_alice", tag: "alice-20", kind: "honest" },
  { creatorId: "cr_bob", tag: "bob-10", kind: "honest" },
  { creatorId: "cr_carol", tag: "carol-15", kind: "honest" },
  { creatorId: "cr_dana", tag: "dana-5", kind: "honest" },
];
/** Accounts whose extension plays a mix of the catalogue's attacks. */
export const ATTACKER_ACCOUNTS: readonly Account[] = [
  { creatorId: "cr_attacker_1", tag: "deals-41", kind: "attacker" },
  { creatorId: "cr_attacker_2", tag: "cashback-77", kind: "attacker" },
];
/** An account whose extension only ever rewrites the landing request (the attack no single order exposes). */
export const REWRITER: Account = { creatorId: "cr_rewriter", tag: "rewards-12", kind: "rewrite-only" };
export const ACCOUNTS: readonly Account[] = [...HONEST_ACCOUNTS, ...ATTACKER_ACCOUNTS, REWRITER];

const REWRITE_ENTRY = "rewrite-landing-request";
const ORGANIC_ENTRY = "organic";

/**
 * The mix: every attack of the catalogue is played once (by half the shoppers at most; a fifth
 * of them when that is more), split between the two mixed accounts; the rewrite-only
 * account plays one journey in a hundred (one at least), as an extension no other attack
 * betrays is rare; the rest are honest shoppers through a creator's link (three in five, every
 * honest journey of the catalogue in turn) and organic shoppers.
 */
export const MIX = { attackerShare: 0.2, rewriteShare: 0.01, honestShareOfRest: 0.6 } as const;

/** A population's shoppers each have an address of their own from two TEST-NET ranges (the third is new-address's). */
export const MAX_JOURNEYS = 508;

/** Browser builds the shoppers use (several shoppers share one, as people do; their addresses differ). */
const BROWSER_BUILDS = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/155.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36 Edg/156.0.0.0",
  "Mozilla/5.0 (Linux; Android 16; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
];

export interface PlannedJourney {
  index: number;
  shopper: ShopperKind;
  entry: Entry;
  cast: Cast;
  /** The account whose extension (or script outside the page) attacks the journey, or null. */
  account: Account | null;
  /** Simulated minutes that pass on the shop before the journey starts. */
  gapMinutes: number;
  /** Simulated minutes from the run's start to the journey's start. */
  startMinute: number;
}

export interface Plan {
  seed: number;
  days: number;
  counts: Record<ShopperKind, number>;
  journeys: PlannedJourney[];
}

export function planPopulation(size: number, days: number, seed: number): Plan {
  const counts = apportion(size);
  const random = (part: string) => seededRandom(deriveSeed(seed, part));
  const honestEntries = shuffled(
    CATALOGUE.filter((e) => e.kind === "honest" && e.name !== ORGANIC_ENTRY),
    random("honest"),
  );
  const attacks = shuffled(
    CATALOGUE.filter((e) => e.kind === "attack"),
    random("attacks"),
  );
  const entry = (name: string) => CATALOGUE.find((e) => e.name === name)!;
  // Rightful creators in turn, from a seeded start: every honest creator earns.
  const turn = Math.floor(random("creators")() * HONEST_ACCOUNTS.length);
  const honestFor = (k: number) => HONEST_ACCOUNTS[(turn + k) % HONEST_ACCOUNTS.length]!;
  const drafts: Omit<PlannedJourney, "index" | "cast" | "gapMinutes" | "startMinute">[] = [];
  const creatorsOf: Account[][] = [];
  const add = (shopper: ShopperKind, played: Entry, account: Account | null, k: number) => {
    drafts.push({ shopper, entry: played, account });
    // bob, where the journey has a second creator, is the next honest creator in turn.
    creatorsOf.push([honestFor(k), honestFor(k + 1)]);
  };
  for (let k = 0; k < counts.honest; k++) add("honest", honestEntries[k % honestEntries.length]!, null, k);
  for (let k = 0; k < counts.attacker; k++) {
    // Each lap of the catalogue's attacks swaps which account plays which, so repeats are mixed.
    const lap = Math.floor(k / attacks.length);
    add("attacker", attacks[k % attacks.length]!, ATTACKER_ACCOUNTS[(k + lap) % ATTACKER_ACCOUNTS.length]!, k);
  }
  for (let k = 0; k < counts["rewrite-only"]; k++) add("rewrite-only", entry(REWRITE_ENTRY), REWRITER, k + 1);
  for (let k = 0; k < counts.organic; k++) add("organic", entry(ORGANIC_ENTRY), null, k);

  const order = shuffled(
    drafts.map((_, i) => i),
    random("order"),
  );
  const agents = random("agents");
  const gaps = spread(
    days * 24 * 60 - drafts.reduce((sum, d) => sum + journeyMinutes(d.entry.journey), 0),
    size,
    random("times"),
  );
  let clock = 0;
  const journeys = order.map((draft, index): PlannedJourney => {
    const { shopper, entry: played, account } = drafts[draft]!;
    const [alice, bob] = creatorsOf[draft]!;
    clock += gaps[index]!;
    const startMinute = clock;
    clock += journeyMinutes(played.journey);
    return {
      index,
      shopper,
      entry: played,
      account,
      gapMinutes: gaps[index]!,
      startMinute,
      cast: {
        shopperAgent: BROWSER_BUILDS[Math.floor(agents() * BROWSER_BUILDS.length)]!,
        shopperAddress: addressOf(index),
        otherAgent: OTHER_AGENT,
        creators: { alice: alice!, bob: bob! },
        // Journeys without an attacker never use it; an account of nobody's keeps them apart.
        attacker: account ?? { creatorId: "cr_no_attacker", tag: "none" },
      },
    };
  });
  return { seed, days, counts, journeys };
}

/** Shoppers per kind (MIX): the attackers first, so that every attack of the catalogue is played. */
function apportion(size: number): Record<ShopperKind, number> {
  const attacks = CATALOGUE.filter((e) => e.kind === "attack").length;
  // Every attack once when half the shoppers can play them; a fifth beyond that.
  const attacker = Math.max(Math.round(size * MIX.attackerShare), Math.min(attacks, Math.floor(size / 2)));
  const rewrite = Math.min(size - attacker, Math.max(1, Math.round(size * MIX.rewriteShare)));
  const rest = size - attacker - rewrite;
  const honest = Math.round(rest * MIX.honestShareOfRest);
  return { attacker, "rewrite-only": rewrite, honest, organic: rest - honest };
}

/**
 * The simulated minutes before each of `size` journeys: `budget` (the days less what the
 * journeys themselves take) cut at random points, none before the first. A negative budget
 * (journeys that take longer than the days) leaves no gaps.
 */
function spread(budget: number, size: number, random: Random): number[] {
  if (size === 0) return [];
  const room = Math.max(0, budget);
  const cuts = [0, ...Array.from({ length: Math.max(0, size - 2) }, () => random() * room), size > 1 ? room : 0];
  cuts.sort((a, b) => a - b);
  return [0, ...cuts.slice(1).map((cut, i) => Math.round(cut - cuts[i]!))].slice(0, size);
}

/** The shopper's own address: TEST-NET-1, then TEST-NET-2 (never routed). */
function addressOf(index: number): string {
  if (index >= MAX_JOURNEYS) throw new Error(`at most ${MAX_JOURNEYS} shoppers have an address of their own`);
  return index < 254 ? `192.0.2.${index + 1}` : `198.51.100.${index - 253}`;
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The mix as it is printed and reported: shoppers per kind, and what each account plays. */
export function describeMix(plan: Plan) {
  const playedBy = (account: Account) => plan.journeys.filter((j) => j.account === account).map((j) => j.entry.name);
  const attacks = CATALOGUE.filter((e) => e.kind === "attack").map((e) => e.name);
  const mixed = new Set(ATTACKER_ACCOUNTS.flatMap(playedBy));
  return {
    seed: plan.seed,
    /** The rule the counts come from (MIX). */
    rule: { ...MIX },
    shoppers: { ...plan.counts },
    honestCreators: HONEST_ACCOUNTS.map((a) => a.creatorId),
    honestJourneys: [...new Set(plan.journeys.filter((j) => j.shopper === "honest").map((j) => j.entry.name))],
    attackers: Object.fromEntries(ATTACKER_ACCOUNTS.map((a) => [a.creatorId, playedBy(a)])),
    attacksNotPlayed: attacks.filter((name) => !mixed.has(name)),
    rewriteOnly: { [REWRITER.creatorId]: playedBy(REWRITER).length },
  };
}

export function formatMix(plan: Plan): string {
  const mix = describeMix(plan);
  const honestKinds = CATALOGUE.filter((e) => e.kind === "honest" && e.name !== ORGANIC_ENTRY).length;
  const attackKinds = CATALOGUE.filter((e) => e.kind === "attack").length;
  const lines = [
    `Mix (seed ${plan.seed}; every attack once, then ${MIX.attackerShare * 100}% attacked at most; ` +
      `${MIX.rewriteShare * 100}% rewrite-only, one at least; of the rest ${MIX.honestShareOfRest * 100}% honest, the others organic):`,
    `  honest        ${String(mix.shoppers.honest).padStart(3)}  through ${mix.honestCreators.join(", ")}; ` +
      `${mix.honestJourneys.length} of the ${honestKinds} honest journeys with a link`,
    ...ATTACKER_ACCOUNTS.map(
      (a) => `  attacker      ${String(mix.attackers[a.creatorId]!.length).padStart(3)}  ${a.creatorId} (${a.tag})`,
    ),
    `                     ${attackKinds - mix.attacksNotPlayed.length} of the catalogue's ${attackKinds} attacks` +
      (mix.attacksNotPlayed.length > 0 ? ` (${attackKinds} and more journeys play them all)` : ""),
    `  rewrite-only  ${String(mix.shoppers["rewrite-only"]).padStart(3)}  ${REWRITER.creatorId} (${REWRITER.tag}), ${REWRITE_ENTRY} only`,
    `  organic       ${String(mix.shoppers.organic).padStart(3)}  no link`,
  ];
  // Journeys are played one after another, so one that itself takes days ("eight days later")
  // takes them from the run: the gaps between journeys get what is left of the days.
  const own = plan.journeys.reduce((sum, j) => sum + journeyMinutes(j.entry.journey), 0) / (24 * 60);
  if (own > plan.days)
    lines.push(
      `  the journeys themselves take ${own.toFixed(1)} simulated days, more than ${plan.days}: they follow each other with no time between`,
    );
  return lines.join("\n");
}
