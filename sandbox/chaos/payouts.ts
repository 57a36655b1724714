import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { minorToAmount } from "../../app/commissions/commission-amount";
import type { PaypalStandin } from "../paypal/server";
import { deriveSeed, pickWeighted, seededRandom, type Random } from "../seeded-random";
import type { ShopifyStandin } from "../shopify";
import { addCredit, addCustomer } from "../shopify/payouts";
import { shuffle } from "./deliveries";
import type { Fleet } from "./fleet";
import type { Front } from "./front";
import type { DueBalance, PayoutFigures, PayoutMethod } from "./payout-ledger";
import type { Pages } from "./payout-pages";
import { payoutSnapshot, type HandPayment } from "./payout-snapshot";
import { payoutFigures } from "./payout-ledger";

// `--payouts`: once the orders have settled, the run's merchant pays its creators through the
// Payouts page of whichever instance is up: the holds are made to pass, each creator gets a method
// (PayPal, store credit, gift card, by hand), and the balances are paid in several runs per shop
// and method, some forms sent twice at once to two instances, some raced by a second form for the
// same balances, some sent again later, while instances are killed with kill -9, PayPal answers
// 5xx and loses answers after accepting, sends its webhooks twice and newest first, and ends some
// items UNCLAIMED (then RETURNED) or FAILED, and Shopify throttles and loses answers after acting.
// Then everything settles, the balances given back are paid by hand, and what the providers paid
// is set against the ledger (payout-ledger.ts).

export interface PayoutPhase {
  db: PrismaClient;
  fleet: Fleet;
  shopify: ShopifyStandin;
  paypal: PaypalStandin;
  /** The webhook address PayPal is given: the run's load balancer in front of the instances. */
  front: Front;
  pages: Pages;
  shops: string[];
  seed: number;
  /** kill -9 while payout runs are being worked on. */
  kills: number;
  /** The share of Shopify mutations throttled (the run's), and of those applied whose answer is lost. */
  throttleRate: number;
  loseAnswerRate: number;
  log: (line: string) => void;
}

export type PayoutReportFields = PayoutFigures & {
  /** Payout runs the app started, by method (a payout recorded by hand counts as one manual run). */
  payoutRuns: Record<PayoutMethod, number>;
};

/** How long the runs get to settle once every form is in: retries with backoff, leases run out, PayPal's returns. */
export const PAYOUT_DRAIN_MS = 10 * 60_000;
/** How long nothing may be in flight before the drain ends: a late webhook or a deferred look still lands. */
const SETTLED_FOR_MS = 3_000;
const METHOD_WEIGHTS: Record<PayoutMethod, number> = { paypal: 3, store_credit: 2.5, gift_card: 2.5, manual: 2 };
/** Balances per run: several creators in each. */
const PER_RUN: Record<PayoutMethod, number> = { paypal: 5, store_credit: 4, gift_card: 4, manual: 5 };
const PAYOUT_SCOPES = [
  "read_customers",
  "write_customers",
  "read_store_credit_account_transactions",
  "write_store_credit_account_transactions",
  "read_gift_cards",
  "write_gift_cards",
];
const INTENT: Record<PayoutMethod, string> = {
  paypal: "paypal-run",
  store_credit: "shopify-run",
  gift_card: "shopify-run",
  manual: "record",
};

interface Form {
  shop: string;
  method: PayoutMethod;
  balances: { key: string; creatorId: string; currency: string; shownMinor: string }[];
}

interface PageBalance {
  key: string;
  creatorId: string;
  currency: string;
  balanceMinor: string;
  payable: boolean;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const emailOf = (shop: string, creatorId: string) =>
  `${creatorId.replace(/[^A-Za-z0-9._-]/g, "_")}.${shop.replace(/\..*$/, "")}@creators.chaos`;

export async function playPayouts(
  phase: PayoutPhase,
): Promise<{ report: PayoutReportFields; kills: number; faults: Record<string, number> }> {
  const { db, fleet, shopify, paypal, pages, shops, log } = phase;
  const started = Date.now();
  const random = (part: string): Random => seededRandom(deriveSeed(phase.seed, `payouts-${part}`));
  const draw = random("plan");
  const must = async (shop: string, page: "payouts" | "creators", form: Record<string, string>) => {
    const answer = await pages.call(shop, page, new URLSearchParams(form));
    if (answer.status !== 200 || answer.body?.ok === false)
      throw new Error(
        `the ${page} page refused ${form.intent ?? "a profile"} for ${shop}: ${JSON.stringify(answer.body)}`,
      );
  };

  const clients = new Map<string, string>();
  for (const shop of shops) {
    shopify.store.grantScopes(shop, PAYOUT_SCOPES);
    const client = paypal.addClient();
    clients.set(client.clientId, shop);
    const webhookId = paypal.registerWebhook(`${phase.front.url}/webhooks/paypal/${shop}`, client.clientId);
    await must(shop, "payouts", { intent: "paypal-account", environment: "sandbox", ...client, webhookId });
    await must(shop, "payouts", { intent: "method", creatorId: "", method: "manual", createCustomers: "on" });
  }
  await passHolds(db);

  // What is due: every balance the page offers to pay once the holds have passed.
  const due: DueBalance[] = [];
  const shown = new Map<string, PageBalance[]>();
  for (const shop of shops) {
    const balances = await pageBalances(pages, shop);
    shown.set(shop, balances);
    for (const b of balances.filter((b) => b.payable)) {
      const records = await db.commission.findMany({
        where: { shop, creatorId: b.creatorId, currency: b.currency, status: "approved" },
        select: { id: true },
      });
      due.push({ ...b, shop, dueMinor: BigInt(b.balanceMinor), recordIds: records.map((r) => r.id) });
    }
  }

  // Each creator's method and email; some already customers of the shop (a few with store credit before).
  const methods = new Map<string, PayoutMethod>();
  const earlierCredits = new Set<string>();
  const returns: string[] = [];
  const creators = [...new Set(due.map((d) => `${d.shop} ${d.creatorId}`))];
  for (const entry of creators) {
    const [shop, creatorId] = entry.split(" ") as [string, string];
    const method = pickWeighted(draw, METHOD_WEIGHTS)!;
    methods.set(entry, method);
    const email = emailOf(shop, creatorId);
    if ((method === "store_credit" || method === "gift_card") && draw() < 0.5) {
      const customer = addCustomer(shopify.store.shop(shop), email, creatorId);
      const currency = (await shopCurrency(db, shop)) ?? "USD";
      const at = new Date().toISOString();
      if (draw() < 0.5)
        earlierCredits.add(
          addCredit(shopify.store.shop(shop), customer, minorToAmount(500n, currency), currency, at).gid,
        );
    }
    if (method === "paypal") {
      const end = draw();
      if (end < 0.15) {
        paypal.plan(email, "UNCLAIMED");
        returns.push(email);
      } else if (end < 0.25) paypal.plan(email, "FAILED");
    }
  }
  await inParallel(creators, 6, async (entry) => {
    const [shop, creatorId] = entry.split(" ") as [string, string];
    await must(shop, "creators", { creatorId, name: creatorId, email: emailOf(shop, creatorId), note: "" });
    await must(shop, "payouts", { intent: "method", creatorId, method: methods.get(entry)! });
  });

  const forms: Form[] = [];
  for (const shop of shops) {
    const currency = await shopCurrency(db, shop);
    const byMethod = new Map<string, Form["balances"]>();
    for (const b of due.filter((d) => d.shop === shop)) {
      let method = methods.get(`${shop} ${b.creatorId}`)!;
      // Store credit and gift cards pay in the shop's currency only: the rest is paid by hand.
      if ((method === "store_credit" || method === "gift_card") && b.currency !== currency) method = "manual";
      // One payment by hand is one transfer in one currency.
      const group = method === "manual" ? `manual ${b.currency}` : method;
      const balance = { key: `${b.currency}:${b.creatorId}`, ...b, shownMinor: String(b.dueMinor) };
      byMethod.set(group, [...(byMethod.get(group) ?? []), balance]);
    }
    for (const [group, balances] of byMethod) {
      const method = group.split(" ")[0] as PayoutMethod;
      for (let at = 0; at < balances.length; at += PER_RUN[method])
        forms.push({ shop, method, balances: balances.slice(at, at + PER_RUN[method]) });
    }
  }

  const handPaid: HandPayment[] = [];
  const answers: Record<string, number> = {};
  const send = async (form: Form, token: string, instance?: string) => {
    const answer = await pages.call(form.shop, "payouts", formBody(form, token), instance);
    const ok = answer.status === 200 && answer.body?.ok === true;
    const said = ok ? (answer.body?.duplicate ? "found the earlier" : "started") : "refused";
    answers[said] = (answers[said] ?? 0) + 1;
    // Which form was refused, and why: a payout the app recorded under a refused key is a bug to read here.
    if (!ok)
      log(
        `  refused form ${token} (${form.method}, ${form.shop}, ${form.balances.length} balances): ` +
          `${answer.status} ${JSON.stringify(answer.body?.errors ?? answer.body)}`,
      );
    // The merchant pays by hand what the page recorded, once per form.
    if (ok && form.method === "manual" && !handPaid.some((p) => p.token === token))
      handPaid.push({ token, shop: form.shop, balances: form.balances });
  };
  const twoInstances = () => {
    const first = fleet.pick() ?? undefined;
    let second = fleet.pick() ?? undefined;
    for (let i = 0; i < 10 && second === first; i++) second = fleet.pick() ?? undefined;
    return [first, second] as const;
  };
  const how = random("forms");
  const play = async (form: Form) => {
    const token = randomUUID();
    const pattern = how();
    if (pattern < 0.3) {
      const [a, b] = twoInstances();
      await Promise.all([send(form, token, a), send(form, token, b)]);
    } else if (pattern < 0.45) await Promise.all([send(form, token), send(form, randomUUID())]);
    else if (pattern < 0.55) {
      await send(form, token);
      await pause(500 + how() * 2_000);
      await send(form, token);
    } else await send(form, token);
  };

  shopify.chaos({
    seed: deriveSeed(phase.seed, "shopify-payouts"),
    throttleMutations: phase.throttleRate,
    loseMutationAnswers: phase.loseAnswerRate,
  });
  paypal.faults({ duplicateWebhooks: true, reorderWebhooks: true });
  const advancing = paypalAdvancing(paypal);
  const ordered = shuffle(forms, random("order"));
  const waves = phase.kills + 1;
  const kills: Promise<void>[] = [];
  log(
    `Paying ${due.length} due balances of ${creators.length} creators in ${forms.length} forms ` +
      `(${countBy(forms.map((f) => f.method))}), ${returns.length} PayPal receivers to end UNCLAIMED then RETURNED...`,
  );
  for (let wave = 0; wave < waves; wave++) {
    // Each wave's first batches: one answered 500, one accepted and its answer lost.
    paypal.faults({ serverErrors: 1, dropAfterAccept: 1 });
    const part = ordered.slice(
      Math.floor((ordered.length * wave) / waves),
      Math.floor((ordered.length * (wave + 1)) / waves),
    );
    await inParallel(part, 4, play);
    if (wave < waves - 1) kills.push(killWhilePaying(db, fleet, wave % fleet.size));
  }
  await Promise.all(kills);
  log(`The Payouts page answered the forms: ${JSON.stringify(answers)}; waiting for the runs to settle...`);
  await settle(db, paypal, log);

  // Given back (bounced, returned, refused): paid by hand, as a merchant would once told.
  const again: Form[] = [];
  for (const shop of shops) {
    const payable = (await pageBalances(pages, shop)).filter(
      (b) => b.payable && due.some((d) => d.shop === shop && d.creatorId === b.creatorId && d.currency === b.currency),
    );
    for (const currency of new Set(payable.map((b) => b.currency)))
      again.push({
        shop,
        method: "manual",
        balances: payable.filter((b) => b.currency === currency).map((b) => ({ ...b, shownMinor: b.balanceMinor })),
      });
  }
  await inParallel(again, 4, play);
  log(`Paid by hand what was given back: ${again.length} forms`);
  advancing.stop();
  await advancing.done;
  shopify.chaos({ seed: deriveSeed(phase.seed, "shopify-after-payouts"), throttleMutations: phase.throttleRate });

  const snapshot = await payoutSnapshot(db, {
    shopify,
    paypal,
    clients,
    shops,
    emailOf,
    earlierCredits,
    handPaid,
    due,
  });
  const figures = payoutFigures(snapshot);
  if (figures.problems.length > 0) log(`${figures.problems.length} payout problems:`);
  for (const line of figures.problems.slice(0, 30)) log(`  ${line}`);
  const { problems: _problems, ...fields } = figures;
  const ends = [...paypal.ledger.batches.values()].flatMap((b) => b.items.map((i) => i.status));
  log(`PayPal's items ended: ${countBy(ends)}; the payouts took ${Math.round((Date.now() - started) / 1000)} s`);
  return {
    report: { payoutRuns: await runsByMethod(db), ...fields },
    kills: kills.length,
    // PayPal's own misbehaviour is in its fault plan's count; these are items that ended badly.
    faults: {
      "paypal-items-returned": ends.filter((end) => end === "RETURNED").length,
      "paypal-items-failed": ends.filter((end) => end === "FAILED").length,
    },
  };
}

function formBody(form: Form, token: string): URLSearchParams {
  const body = new URLSearchParams({
    intent: INTENT[form.method],
    formToken: token,
    reference: `chaos payout ${token.slice(0, 8)}`,
    paidOn: new Date().toISOString().slice(0, 10),
  });
  if (form.method === "store_credit" || form.method === "gift_card") body.set("method", form.method);
  for (const b of form.balances) {
    body.append("balance", b.key);
    body.set(`shown:${b.key}`, b.shownMinor);
  }
  return body;
}

async function pageBalances(pages: Pages, shop: string): Promise<PageBalance[]> {
  const answer = await pages.call(shop, "payouts");
  const balances = (answer.body as { balances?: PageBalance[] } | null)?.balances;
  if (answer.status !== 200 || !balances)
    throw new Error(`the Payouts page of ${shop} did not load: HTTP ${answer.status}`);
  return balances;
}

async function shopCurrency(db: PrismaClient, shop: string): Promise<string | null> {
  return (await db.shopProfile.findUnique({ where: { shop }, select: { currencyCode: true } }))?.currencyCode ?? null;
}

/** The holds pass (their ends moved to now, as if the days had gone by); the app's approval sweep approves the records. */
async function passHolds(db: PrismaClient): Promise<void> {
  const now = new Date();
  await db.commission.updateMany({ where: { status: "pending", holdUntil: { gt: now } }, data: { holdUntil: now } });
  const held = new Set(
    (await db.creatorStanding.findMany({ where: { state: { in: ["suspected", "blocked"] } } })).map(
      (s) => `${s.shop} ${s.creatorId}`,
    ),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pending = await db.commission.findMany({
      where: { status: "pending" },
      select: { shop: true, creatorId: true },
    });
    if (pending.every((c) => held.has(`${c.shop} ${c.creatorId}`))) return;
    if (Date.now() > deadline) throw new Error(`the approval sweep left ${pending.length} records pending after 60 s`);
    await pause(500);
  }
}

/**
 * PayPal ends each item a little after it is sent (PENDING to its receiver's planned end), and an
 * item left UNCLAIMED comes back RETURNED at the next turn, as after PayPal's 30 days.
 */
function paypalAdvancing(paypal: PaypalStandin) {
  let running = true;
  const done = (async () => {
    let unclaimed: string[] = [];
    while (running) {
      await paypal.advance();
      if (unclaimed.length > 0) await paypal.advance({ returnUnclaimed: true, receivers: unclaimed });
      unclaimed = [...paypal.ledger.batches.values()].flatMap((b) =>
        b.items.filter((i) => i.status === "UNCLAIMED").map((i) => i.receiver),
      );
      await pause(1_000);
    }
  })();
  return { done, stop: () => void (running = false) };
}

/** kill -9 while an instance is working on a payout run. */
async function killWhilePaying(db: PrismaClient, fleet: Fleet, slot: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await db.job.count({ where: { kind: "payout-run", state: "running" } })) === 0)
    await pause(50);
  await fleet.killAndRestart(slot);
}

/** Waits until no run is in flight, no PayPal report waits and PayPal has ended every item; bounded. */
async function settle(db: PrismaClient, paypal: PaypalStandin, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + PAYOUT_DRAIN_MS;
  let settledSince: number | null = null;
  let said = Date.now();
  for (;;) {
    const [inFlight, reports] = await Promise.all([
      db.payoutRun.count({ where: { state: { in: ["intent", "unknown", "sent"] } } }),
      db.paypalEvent.count({ where: { outcome: "pending" } }),
    ]);
    const open = [...paypal.ledger.batches.values()].flatMap((b) =>
      b.items.filter((i) => i.status === "PENDING" || i.status === "UNCLAIMED"),
    ).length;
    if (inFlight + reports + open === 0) {
      settledSince ??= Date.now();
      if (Date.now() - settledSince >= SETTLED_FOR_MS) return;
    } else settledSince = null;
    if (Date.now() > deadline) {
      log(
        `Payout drain over: ${inFlight} runs in flight, ${reports} PayPal reports not applied, ${open} PayPal items open`,
      );
      return log(await leftOver(db));
    }
    if (Date.now() - said > 15_000) {
      said = Date.now();
      log(`  ${inFlight} payout runs in flight, ${reports} PayPal reports waiting, ${open} PayPal items open`);
    }
    await pause(500);
  }
}

/** What the drain left, with its run's and job's state: for the person reading the run. */
async function leftOver(db: PrismaClient): Promise<string> {
  const reports = await db.paypalEvent.findMany({ where: { outcome: "pending" } });
  const payouts = await db.payout.findMany({
    where: { id: { in: reports.flatMap((r) => (r.senderItemId ? [r.senderItemId] : [])) } },
    select: { id: true, runId: true },
  });
  const runs = await db.payoutRun.findMany({
    where: {
      OR: [{ state: { in: ["intent", "unknown", "sent"] } }, { id: { in: payouts.flatMap((p) => p.runId ?? []) } }],
    },
  });
  const jobs = await db.job.findMany({
    where: { kind: "payout-run", subject: { in: runs.map((r) => r.id) } },
    select: { subject: true, state: true, runAt: true, attempts: true, rerun: true, lastError: true },
  });
  return JSON.stringify({
    runs: runs.map((r) => ({
      id: r.id,
      method: r.method,
      state: r.state,
      lastError: r.lastError,
      job: jobs.find((j) => j.subject === r.id) ?? null,
    })),
    reports: reports.map((r) => ({
      type: r.eventType,
      status: r.status,
      senderItemId: r.senderItemId,
      receivedAt: r.receivedAt,
      run: payouts.find((p) => p.id === r.senderItemId)?.runId ?? null,
    })),
  });
}

async function runsByMethod(db: PrismaClient): Promise<Record<PayoutMethod, number>> {
  const runs = await db.payoutRun.groupBy({ by: ["method"], _count: true });
  const of = (method: string) => runs.find((r) => r.method === method)?._count ?? 0;
  return {
    paypal: of("paypal"),
    store_credit: of("store_credit"),
    gift_card: of("gift_card"),
    manual: await db.payout.count({ where: { method: "manual" } }),
  };
}

async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${n} ${value}`).join(", ");
}
