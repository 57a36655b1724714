import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dashboardQueries } from "../../app/dashboard/dashboard-queries.server";
import { databaseClient } from "../../app/database/db.server";
import { sql } from "../../app/database/sql.server";
import { OUTCOMES } from "../../app/verification/outcomes";
import { foldRollups } from "../../app/database/rollups.server";

const prisma = databaseClient();

// The dashboard counts decided orders from VerificationHour, which triggers append to on every
// change to an order and the fold merges. Whatever is inserted, updated, deleted or folded, and
// whatever the period and the shop's zone, the dashboard's statements must count what a plain
// pass over the orders counts. Runs on SQLite and, in the "postgresql" project, on PostgreSQL's
// port of the triggers and its own fold statement.

// Minutes past the hour, so every period starts inside an hour (the part read from Verification).
const NOW = new Date("2026-11-21T15:37:12.345Z");
const DAY = 86_400_000;
const SOURCES = ["app_proxy", "pixel", "cart_attributes", "landing_site"] as const;
/** UTC, whole hours either side, and the zones offset by :30 and :45 (India, Newfoundland, Nepal). */
const OFFSETS = [0, 60, -600, 330, -210, 345];

const outcome = fc.constantFrom(null, ...OUTCOMES);
const source = fc.constantFrom(null, ...SOURCES);
const order = fc.record({ outcome, source, ageMs: fc.integer({ min: 0, max: 100 * DAY }) });
const change = fc.oneof(
  fc.record({ kind: fc.constant("outcome" as const), at: fc.nat(), outcome }),
  fc.record({ kind: fc.constant("source" as const), at: fc.nat(), source }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("fold" as const) }),
);

type Row = { outcome: string | null; captureSource: string | null; createdAt: Date };
type Tally = { counts: Record<string, number>; coverage: Record<string, number> };

/** What the dashboard should show, from the orders themselves. */
function expected(rows: Row[], since: Date, offset: number): Tally {
  const tally: Tally = { counts: {}, coverage: {} };
  for (const row of rows) {
    if (row.createdAt < since) continue;
    const name = row.outcome ?? "inProgress";
    tally.counts[name] = (tally.counts[name] ?? 0) + 1;
    const day = Math.floor((row.createdAt.getTime() + offset * 60_000) / DAY);
    if (row.captureSource) add(tally.coverage, `${row.captureSource} ${day}`, 1);
    if (row.outcome === "unattributed") add(tally.coverage, `none ${day}`, 1);
  }
  return tally;
}

/** What the dashboard's statements count. */
async function counted(shop: string, since: Date, offset: number): Promise<Tally> {
  const q = dashboardQueries(shop, since, offset);
  const tally: Tally = { counts: {}, coverage: {} };
  for (const row of await sql.rows<{ outcome: string | null; n: unknown }>(q.outcomeCounts))
    add(tally.counts, row.outcome ?? "inProgress", Number(row.n));
  for (const row of await sql.rows<{ source: string | null; day: unknown; n: unknown }>(q.coverageByDay))
    add(tally.coverage, `${row.source ?? "none"} ${Number(row.day)}`, Number(row.n));
  return tally;
}

function add(into: Record<string, number>, key: string, n: number) {
  const sum = (into[key] ?? 0) + n;
  if (sum === 0) delete into[key];
  else into[key] = sum;
}

let sequence = 0;

describe("the dashboard's hour rollup", () => {
  it("counts what the orders count, after inserts, updates, deletes and folds, for every period and zone", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(order, { minLength: 1, maxLength: 20 }),
        fc.array(change, { maxLength: 12 }),
        async (orders, changes) => {
          sequence += 1;
          const shop = `hours-${sequence}.myshopify.com`;
          const ids: string[] = [];
          for (const [i, o] of orders.entries()) {
            const createdAt = new Date(NOW.getTime() - o.ageMs);
            const row = await prisma.verification.create({
              data: {
                shop,
                orderId: String(i),
                orderGid: `gid://shopify/Order/${i}`,
                orderCreatedAt: createdAt,
                createdAt,
                outcome: o.outcome,
                captureSource: o.source,
                orderFacts: "{}",
              },
            });
            ids.push(row.id);
          }
          for (const c of changes) {
            if (c.kind === "fold") {
              await foldRollups();
              continue;
            }
            if (ids.length === 0) continue;
            const id = ids[c.at % ids.length]!;
            if (c.kind === "delete") {
              await prisma.verification.delete({ where: { id } });
              ids.splice(ids.indexOf(id), 1);
            } else if (c.kind === "outcome")
              await prisma.verification.update({ where: { id }, data: { outcome: c.outcome } });
            else await prisma.verification.update({ where: { id }, data: { captureSource: c.source } });
          }

          const rows = await prisma.verification.findMany({ where: { shop } });
          for (const days of [7, 30, 90]) {
            const since = new Date(NOW.getTime() - days * DAY);
            for (const offset of OFFSETS)
              expect(await counted(shop, since, offset)).toEqual(expected(rows, since, offset));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("folds each key's rows into one, and drops the keys that sum to nothing", async () => {
    const shop = "hours-fold.myshopify.com";
    const at = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
    const made = [];
    for (const [i, minutes] of [5, 10, 20, 95].entries()) {
      made.push(
        await prisma.verification.create({
          data: {
            shop,
            orderId: String(i),
            orderGid: `gid://shopify/Order/${i}`,
            orderCreatedAt: at(minutes),
            createdAt: at(minutes),
            outcome: "matched",
            captureSource: "pixel",
            orderFacts: "{}",
          },
        }),
      );
    }
    // One order moves to hijacked and back, one is deleted: rows of -1 and +1 that cancel.
    await prisma.verification.update({ where: { id: made[0]!.id }, data: { outcome: "hijacked" } });
    await prisma.verification.update({ where: { id: made[0]!.id }, data: { outcome: "matched" } });
    await prisma.verification.delete({ where: { id: made[3]!.id } });
    expect(await prisma.verificationHour.count({ where: { shop } })).toBe(9);

    await foldRollups();
    const rows = await prisma.verificationHour.findMany({ where: { shop }, orderBy: { hour: "asc" } });
    // 15:37 less 5, 10 and 20 minutes: three orders of hour 15 (quarters 2, 1 and 1); hour 14's
    // only order and hijacked's +1 and -1 summed to nothing, and left no row.
    expect(
      rows.map(({ hour, outcome, source, q0, q1, q2, q3, loose }) => ({
        hour,
        outcome,
        source,
        q0,
        q1,
        q2,
        q3,
        loose,
      })),
    ).toEqual([
      {
        hour: Math.floor(NOW.getTime() / 3_600_000),
        outcome: "matched",
        source: "pixel",
        q0: 0,
        q1: 2,
        q2: 1,
        q3: 0,
        loose: false,
      },
    ]);
    expect(await foldRollups()).toBe(0);
  });
});
