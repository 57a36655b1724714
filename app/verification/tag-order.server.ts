import type { Verification } from "@prisma/client";
import { countTagWrite } from "../metrics/registry.server";
import { markOrderHijacked, readOrderTagGuardState } from "../shopify-admin/orders.server";
import { noteThrottled, noteWritten, reserveWrite } from "../shopify-admin/write-schedule.server";
import type { ServerSettings } from "../settings/shop-settings.server";
import type { Sql } from "../database/sql.server";
import type { OrderRun, StepResult } from "./order-run.server";

// Tags a hijacked order and stores the evidence on it. The write waits for the shop's Admin
// API bucket without holding a worker slot: when the bucket is empty the job is deferred to the
// time it refills, and every other order (this shop's verdicts, other shops' writes) goes on.
// The mutation is idempotent, but it is sent once all the same: it is marked as started before
// it goes out, and a run that finds the mark reads the order's tags before sending it again.

export async function tagOrder(run: OrderRun, row: Verification, settings: ServerSettings): Promise<StepResult> {
  const waitMs = reserveWrite(row.shop, run.now, run.ctx.job.runAt);
  if (waitMs > 0) return run.defer(new Date(run.now.getTime() + waitMs), "waiting for the shop's Admin API rate limit");

  // When tagging cannot succeed (or has used its attempts), the hijack still stands and the
  // creator is still credited; the order page says why the tag is missing.
  const withoutTag = async (message: string, also?: (tx: Sql) => Promise<unknown>) => ({
    row: await run.update({ lastError: `tag-order: ${message}`, reason: `hijack detected; ${message}` }, also),
  });

  // The verdict is still held by the run (verdict.server.ts): stored before Shopify is called.
  await run.flush();
  const access = await run.deps.shopifyAdmin(row.shop);
  if (!access.ok) {
    if (access.retryable && run.attemptsLeft()) return run.retry(null, `tag-order: ${access.message}`);
    return withoutTag(access.message);
  }

  if (row.tagStartedAt !== null) {
    const state = await readOrderTagGuardState(access.graphql, row.orderGid, { maxAttempts: 1 });
    if (state.ok && state.order?.tags.includes(settings.hijackTag)) {
      return { row: await run.update({ taggedAt: run.now, evidenceAt: run.now, lastError: null }) };
    }
  }

  const attempt = await run.write(async (tx) => {
    await run.updateRow(tx, { tagStartedAt: run.now });
    return run.startAttempt(tx, "tag-order");
  });
  const result = await markOrderHijacked(
    access.graphql,
    {
      orderGid: row.orderGid,
      tag: settings.hijackTag,
      evidence: {
        expectedTag: row.expectedTag ?? "",
        arrivedTag: row.arrivedTag,
        creatorId: row.creatorId ?? "",
        verdict: row.verdict ?? "hijacked",
        decidedAt: run.now.toISOString(),
        clickId: row.clickId,
      },
    },
    { maxAttempts: 1 },
  );
  const logged = (outcome: string, error: string | null) => (tx: Sql) => run.endAttempt(tx, attempt, outcome, error);
  if (result.ok) {
    countTagWrite("ok");
    noteWritten(row.shop, run.now, result.cost);
    return {
      row: await run.update({ taggedAt: run.now, evidenceAt: run.now, lastError: null }, logged("ok", null)),
    };
  }
  if (result.throttledForMs !== undefined) {
    // Refused before it was applied: not an attempt that failed, a time to come back.
    countTagWrite("throttled");
    noteThrottled(row.shop, run.now, result.throttledForMs);
    await run.write(logged("throttled", result.message));
    return run.defer(new Date(run.now.getTime() + result.throttledForMs), "the shop's Admin API bucket is empty");
  }
  if (result.retryable && run.attemptsLeft()) {
    countTagWrite("retryable");
    return run.retry(null, `tag-order: ${result.message}`, { also: logged("retryable", result.message) });
  }
  countTagWrite("error");
  return withoutTag(`tagging the order failed: ${result.message}`, logged("error", result.message));
}
