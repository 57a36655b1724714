import { beforeAll, describe, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { durationText, median } from "../../app/creators/creator-page.server";
import * as dashboardRoute from "../../app/routes/app._index";
import * as creatorsRoute from "../../app/routes/app.creators";
import * as orderRoute from "../../app/routes/app.orders.$id";
import * as payoutsRoute from "../../app/routes/app.payouts";
import { saveSettings } from "../../app/settings/shop-settings.server";
import { seedSuspectedCreator, type SuspectedCreatorSeed } from "../../sandbox/admin-pages/suspected-creator";
import { adminRequest, call, sessionToken, storeOfflineSession } from "./helpers";

// The Creators page, the dashboard, the order page and the payouts page on a suspected creator,
// through the route modules with real session tokens: the evidence in counts and sentences
// with their orders, why the rule suspects them, the decisions (a stale one refused, reverse
// and its undo, release), and what the other pages say of a held creator.

const prisma = databaseClient();
const SHOP = "creators-admin.myshopify.com";
const QUIET = "creators-quiet.myshopify.com";

let seed: SuspectedCreatorSeed;

async function load(path: string, shop = SHOP) {
  const response = await call(creatorsRoute.loader as never, adminRequest(path, shop));
  expect(response.status).toBe(200);
  return response.json();
}

async function post(form: Record<string, string>, shop = SHOP, token?: string | null) {
  return call(creatorsRoute.action as never, adminRequest("/app/creators", shop, { form, token }));
}

const sentences = (counts: { key: string; sentence: string; count: number }[]) =>
  Object.fromEntries(counts.filter((c) => c.count > 0).map((c) => [c.key, c.sentence]));

beforeAll(async () => {
  for (const shop of [SHOP, QUIET]) await storeOfflineSession(shop);
  const saved = await saveSettings(SHOP, { clickServiceUrl: "https://clicks.example.com", apiKey: "sk_creators_1234" });
  expect(saved.ok).toBe(true);
  seed = await seedSuspectedCreator(SHOP, { firstOrder: 61_001, approved: true, contested: true });
});

describe("the Creators page", () => {
  it("lists the suspected creator first, with why in a line, and badges each creator's standing", async () => {
    const page = await load("/app/creators");
    expect(page.suspected).toEqual([
      {
        creatorId: "cr_mallory",
        suspectedAt: expect.any(String),
        // The evidence as the rule last read it: the contested order came after the suspicion.
        line: expect.stringMatching(/^3 of 5 orders named their click without crediting it; suspected /),
      },
    ]);
    expect(page.rows[0].creatorId).toBe("cr_mallory");
    expect(page.rows.map((row: { creatorId: string }) => row.creatorId)).toContain("cr_dana");
    expect(page.standing).toEqual({ cr_mallory: "suspected" });
    expect(page.view).toBeNull();

    const filtered = await load("/app/creators?standing=suspected");
    expect(filtered.rows.map((row: { creatorId: string }) => row.creatorId)).toEqual(["cr_mallory"]);
    expect((await load("/app/creators?standing=blocked")).rows).toEqual([]);
  });

  it("shows a creator's evidence as counts in sentences, each with its orders, and why the rule suspects them", async () => {
    const { view } = await load("/app/creators?creator=cr_mallory&days=30");
    // Orders that named them: first, second and the contested one (claims), taken and approved (credited).
    expect(view.orders).toBe(5);
    expect(sentences(view.counts)).toEqual({
      credited: "2 orders credited to this creator",
      contested: "1 of 5 orders: their click was among the claims of a contested order",
      tampering: "1 of 5 orders: the evidence carries a mark no honest shopper's journey leaves",
      slow: "4 of 5 orders: their click reached Tag Guard over a minute after the click service recorded it",
    });
    expect(sentences(view.signals)).toEqual({
      "signal:not-a-landing": "1 of 5 orders: a script named their click, but no page landed with it",
      "signal:later": "2 of 5 orders: another creator's click was seen first",
    });
    const later = view.signals.find((c: { key: string }) => c.key === "signal:later");
    expect(later.orders.map((o: { id: string }) => o.id)).toEqual([seed.stoodDown[1], seed.stoodDown[0]]);
    const credited = view.counts.find((c: { key: string }) => c.key === "credited");
    expect(credited.orders.map((o: { id: string }) => o.id)).toEqual([seed.approved, seed.taken]);
    expect(view.clicks).toEqual({
      lookedUp: 5,
      sentence: "Clicks looked up at the click service: 5; orders credited: 2",
      delay:
        "From the click service's click time to Tag Guard first seeing it: 3 min 0 s at the median; 4 of 5 clicks took over a minute",
      sampled: null,
    });
    expect(view.standing).toMatchObject({
      state: "suspected",
      version: 1,
      why: expect.stringMatching(
        /^Why the rule suspected them: from \w+ \d+, \d{4} to \w+ \d+, \d{4}, 3 of their 5 orders named their click without crediting it, 1 of them with a mark/,
      ),
      rule: "The rule: at least 2 such orders, at least 1 of them marked, making at least 50% of the creator's orders in the last 90 days.",
      firstSuspected: "First suspected after 4 of their orders.",
    });
    expect(view.standing.summary).toMatch(/^Suspected since .+\. Their unpaid commissions are held/);
    expect(view.decidable).toEqual(["release", "reverse", "block"]);
    expect(view.unpaid).toEqual({ pending: 1, approved: 1, review: 0, toAnotherCreator: 1 });
    expect(view.decisions).toEqual([]);
  });

  it("a creator nothing names has no evidence and no standing", async () => {
    const { view } = await load("/app/creators?creator=cr_nobody", QUIET);
    expect(view).toMatchObject({ orders: 0, standing: null, decidable: [], decisions: [] });
    expect(view.clicks.delay).toBe("No click of theirs with the click service's time in this period.");
  });

  it("refuses a decision on a stale view and a malformed one, and answers a forged token with 401", async () => {
    const stale = await post({ intent: "decide", creatorId: "cr_mallory", kind: "reverse", version: "0" });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ intent: "decide", ok: false, creatorId: "cr_mallory", error: "changed" });
    const bad = await post({ intent: "decide", creatorId: "cr_mallory", kind: "pardon", version: "1" });
    expect(bad.status).toBe(400);
    const missing = await post({ intent: "decide", creatorId: "cr_nobody", kind: "release", version: "1" });
    expect(missing.status).toBe(404);
    const forged = sessionToken(SHOP, { secret: "not-the-apps-secret" });
    const refused = await post(
      { intent: "decide", creatorId: "cr_mallory", kind: "reverse", version: "1" },
      SHOP,
      forged,
    );
    expect([302, 401]).toContain(refused.status);
    expect((await prisma.creatorStanding.findFirstOrThrow({ where: { shop: SHOP } })).state).toBe("suspected");
  });

  it("reverse: the taken order goes to the honest creator, the other is reversed; undo puts both back", async () => {
    const decided = await post({ intent: "decide", creatorId: "cr_mallory", kind: "reverse", version: "1" });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toEqual({
      intent: "decide",
      ok: true,
      creatorId: "cr_mallory",
      kind: "reverse",
      state: "reversed",
      moved: 1,
      reversed: 1,
    });
    const taken = await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.taken } });
    expect(taken).toMatchObject({ creatorId: "cr_dana", redirected: true, status: "pending" });
    const reversed = await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.approved! } });
    expect(reversed).toMatchObject({ creatorId: "cr_mallory", status: "reversed", amount: "0.00" });

    const { view, standing, suspected } = await load("/app/creators?creator=cr_mallory");
    expect(standing.cr_mallory).toBe("reversed");
    expect(suspected).toEqual([]);
    expect(view.decidable).toEqual(["block"]);
    expect(view.decisions).toEqual([
      {
        id: expect.any(String),
        kind: "reverse",
        by: "42",
        at: expect.any(String),
        moved: 2,
        undoneAt: null,
        undoneBy: null,
        canUndo: true,
      },
    ]);

    const undone = await post({ intent: "undo", decisionId: view.decisions[0].id });
    expect(undone.status).toBe(200);
    expect(await undone.json()).toEqual({ intent: "undo", ok: true, state: "suspected", restored: 2 });
    expect(await prisma.commission.findUniqueOrThrow({ where: { verificationId: seed.taken } })).toMatchObject({
      creatorId: "cr_mallory",
      status: "pending",
    });
    const again = await post({ intent: "undo", decisionId: view.decisions[0].id });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ intent: "undo", ok: false, error: "undone" });
    const after = (await load("/app/creators?creator=cr_mallory")).view;
    expect(after.decisions[0]).toMatchObject({ undoneBy: "42", undoneAt: expect.any(String), canUndo: false });
    expect(after.standing).toMatchObject({ state: "suspected", version: 3 });
  });
});

describe("a suspected creator on the other pages", () => {
  it("the dashboard names them with what is held, and groups the contested orders by creator", async () => {
    const response = await call(dashboardRoute.loader as never, adminRequest("/app", SHOP));
    expect(response.status).toBe(200);
    const dashboard = await response.json();
    expect(dashboard.creators.suspected).toEqual({
      count: 1,
      creators: [{ creatorId: "cr_mallory", suspectedAt: expect.any(String), held: ["$20.00"] }],
    });
    expect(dashboard.creators.reviewByCreator).toEqual([
      { creatorId: "cr_dana", orders: 1, state: null },
      { creatorId: "cr_mallory", orders: 1, state: "suspected" },
    ]);
  });

  it("an order naming them says so, and lists its creators' claims", async () => {
    const id = seed.stoodDown[0]!;
    const response = await call(orderRoute.loader as never, adminRequest(`/app/orders/${id}`, SHOP), { id });
    expect(response.status).toBe(200);
    const { order } = await response.json();
    expect(order.creators).toEqual({
      claims: [
        {
          creatorId: "cr_mallory",
          clickId: expect.any(String),
          outcome: "stood-down",
          signals: ["not-a-landing", "later"],
          tampering: true,
        },
      ],
      held: [{ creatorId: "cr_mallory", state: "suspected" }],
    });
  });

  it("payouts list their approved balance as held, not payable", async () => {
    const response = await call(payoutsRoute.loader as never, adminRequest("/app/payouts", SHOP));
    const { balances } = await response.json();
    expect(balances).toContainEqual(
      expect.objectContaining({ creatorId: "cr_mallory", held: "suspected", payable: false }),
    );
  });

  it("release: paid as credited, no longer held anywhere", async () => {
    const decided = await post({ intent: "decide", creatorId: "cr_mallory", kind: "release", version: "3" });
    expect(await decided.json()).toMatchObject({ ok: true, state: "released", moved: 0, reversed: 0 });
    const dashboard = await (await call(dashboardRoute.loader as never, adminRequest("/app", SHOP))).json();
    expect(dashboard.creators.suspected.count).toBe(0);
    const { balances } = await (await call(payoutsRoute.loader as never, adminRequest("/app/payouts", SHOP))).json();
    expect(balances).toContainEqual(expect.objectContaining({ creatorId: "cr_mallory", held: null, payable: true }));
  });
});

describe("the page's helpers", () => {
  it("writes durations as a merchant reads them, and takes the lower middle", () => {
    expect(durationText(400)).toBe("under a second");
    expect(durationText(42_000)).toBe("42 s");
    expect(durationText(185_000)).toBe("3 min 5 s");
    expect(durationText(2 * 3_600_000 + 600_000)).toBe("2 h 10 min");
    expect(durationText(-5)).toBe("under a second");
    expect(median([])).toBeNull();
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2);
  });
});

describe("the words for every state, decision, signal and claim", () => {
  it("has each in en.json, so no page shows a key", async () => {
    const { hasMessage } = await import("../../app/i18n");
    const { CREATOR_STATES, DECISION_KINDS } = await import("../../app/commissions/creator-standing");
    const { CLAIM_OUTCOMES, EVIDENCE_SIGNALS } = await import("../../app/attribution/creator-evidence");
    const keys = [
      ...CREATOR_STATES.flatMap((state) => [`creators.standingLabel.${state}`, `creators.standing.state.${state}`]),
      ...["marked-claims", "stood-down"].flatMap((reason) => [
        `creators.standing.why.${reason}`,
        `creators.standing.rule.${reason}`,
      ]),
      ...DECISION_KINDS.flatMap((kind) => [
        `creators.decision.kind.${kind}`,
        `creators.decision.confirmTitle.${kind}`,
        `creators.decision.confirm.${kind}`,
        `creators.decision.confirmUndoTitle.${kind}`,
        `creators.decision.done.${kind}`,
        `creators.decision.historyKind.${kind}`,
      ]),
      ...["bad-request", "not-found", "changed", "not-decidable", "undone", "not-latest", "paid-since"].map(
        (error) => `creators.decision.error.${error}`,
      ),
      ...EVIDENCE_SIGNALS.map((signal) => `creators.signal.${signal}`),
      ...CLAIM_OUTCOMES.map((outcome) => `order.claimOutcome.${outcome}`),
      "order.creatorHeld.suspected",
      "order.creatorHeld.blocked",
    ];
    expect(keys.filter((key) => !hasMessage(key))).toEqual([]);
  });
});
