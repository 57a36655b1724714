import type { Verification } from "@prisma/client";
import type { ClickServiceError } from "../click-service";
import { flagCredentialsRejected, type ServerSettings } from "../settings/shop-settings.server";
import { knownClick } from "../landing/journey.server";
import type { Sql } from "../database/sql.server";
import type { Change, OrderRun, StepResult } from "./order-run.server";

// The verdict: was the tag that reached the order the creator's? The order is reported to the
// service (verify-click) at most once (decision 010). The report is marked as started, fenced
// by the job's lease, before it is sent; once marked it is never sent again, unless nothing
// reached the service (no connection) or the service refused the key before recording anything.
// When an answer is lost on the way back, the verdict is settled with lookup-click, a read that
// is safe to repeat, by comparing the click's expected tag with the arrived one. A verdict goes
// with the order's next write (OrderRun.keep): its credit, its tag write's deferral, or the
// mark set before the tag write goes out (tag-order.server.ts flushes it before calling Shopify).

const KEY_REJECTED =
  "the Click Verification Service rejected the API key; fix it in Settings and the order is retried while its click is alive";

/** `attributed`: the order's attribution, not yet written; it goes with the report's start. */
export async function decideVerdict(
  run: OrderRun,
  row: Verification,
  settings: ServerSettings,
  attributed: Partial<Verification> = {},
): Promise<StepResult> {
  if (row.reportStartedAt === null) {
    const reported = await report(run, row, settings, attributed);
    if (reported) return reported;
  }
  return settleWithLookup(run, row, settings);
}

/** Sends the report; returns null when its fate is unknown and the lookup must settle it. */
async function report(
  run: OrderRun,
  row: Verification,
  settings: ServerSettings,
  attributed: Partial<Verification>,
): Promise<StepResult | null> {
  const attempt = await run.write(async (tx) => {
    await run.updateRow(tx, { ...attributed, reportStartedAt: run.now });
    return run.startAttempt(tx, "verify-click");
  });
  const result = await run.deps.clickService(settings).verifyClick(
    {
      clickId: row.clickId ?? "",
      // A stripped tag is sent as "": it cannot match, so the service reports the hijack.
      arrivedTag: row.arrivedTag ?? "",
      conversion: true,
      orderId: row.orderId,
      orderValue: row.orderValue ?? undefined,
    },
    { deadline: row.deadlineAt ?? undefined, signal: run.ctx.signal },
  );
  if (result.ok) {
    const answer = result.value;
    const updated = await run.keep(
      {
        expectedTag: answer.expectedTag,
        creatorId: answer.creatorId,
        verdict: answer.verdict,
        recorded: answer.recorded,
        hijacked: answer.isHijacked,
        verdictSource: "service",
        reportConfirmed: true,
        lastError: null,
      },
      (tx) => run.endAttempt(tx, attempt, "ok"),
    );
    return { row: updated };
  }
  const error = result.error;
  // Nothing was recorded: the report may go again.
  const unsent = (result: string) => ({
    data: { reportStartedAt: null },
    also: (tx: Sql) => run.endAttempt(tx, attempt, result, error.message),
  });
  if (error.kind === "retryable" && !error.sent)
    return run.retry(row.deadlineAt, describe(error), unsent("not-sent"), () =>
      landingVerdict(run, row, unsent("not-sent")),
    );
  switch (error.kind) {
    case "destination":
      // The stored URL is not one the app may call: only the merchant can fix it.
      return run.park(`the service URL cannot be used: ${error.message}`, unsent("error"));
    case "credentials":
      // Refused before anything was recorded: the report may go again once the key is fixed.
      await flagCredentialsRejected(row.shop, run.now);
      return run.park(KEY_REJECTED, unsent("credentials"));
    case "expired":
      return expiredOrLanding(
        run,
        row,
        "the click is unknown to the service or past its one-hour life",
        unsent("expired"),
      );
    case "bad-request":
    case "invalid-input":
      return run.end("failed", `the service refused the request: ${error.message}`, unsent("error"));
    default:
      // Timed out, reset, a 5xx, an answer off the contract: the service may have recorded it.
      await run.update({ lastError: describe(error) }, (tx) => run.endAttempt(tx, attempt, "unknown", error.message));
      return null;
  }
}

async function settleWithLookup(run: OrderRun, row: Verification, settings: ServerSettings): Promise<StepResult> {
  const attempt = await run.write((tx) => run.startAttempt(tx, "lookup-click"));
  const result = await run.deps
    .clickService(settings)
    .lookupClick(row.clickId ?? "", { deadline: row.deadlineAt ?? undefined, signal: run.ctx.signal });
  if (result.ok) {
    const click = result.value;
    const arrived = row.arrivedTag ?? "";
    const hijacked = arrived !== click.expectedTag;
    const updated = await run.keep(
      {
        expectedTag: click.expectedTag,
        creatorId: click.creatorId,
        verdict: hijacked
          ? "hijacked: the arrived tag is not the click's expected tag (settled by lookup-click)"
          : "matched: the arrived tag is the click's expected tag (settled by lookup-click)",
        recorded: null,
        hijacked,
        verdictSource: "service",
        reportConfirmed: false,
        lastError: null,
      },
      (tx) => run.endAttempt(tx, attempt, "ok"),
    );
    return { row: updated };
  }
  const error = result.error;
  const logged = (outcome: string) => ({ also: (tx: Sql) => run.endAttempt(tx, attempt, outcome, error.message) });
  switch (error.kind) {
    case "destination":
      return run.park(`the service URL cannot be used: ${error.message}`, logged("error"));
    case "credentials":
      await flagCredentialsRejected(row.shop, run.now);
      return run.park(KEY_REJECTED, logged("credentials"));
    case "expired":
      return expiredOrLanding(
        run,
        row,
        "the service may have recorded the order, but its answer was lost and the click can no longer be looked up",
        logged("expired"),
      );
    default:
      return run.retry(row.deadlineAt, describe(error), logged("retryable"), () =>
        landingVerdict(run, row, logged("retryable")),
      );
  }
}

/**
 * The service no longer knows the click. If lookup-click learned it when the shopper landed, the
 * verdict comes from that record, exactly as the service would have given it (decision 011);
 * the 404 stays in the attempt log. Without a landing record the order has expired.
 */
async function expiredOrLanding(run: OrderRun, row: Verification, reason: string, change: Change): Promise<StepResult> {
  return (await landingVerdict(run, row, change)) ?? run.end("expired", reason, change);
}

/**
 * The verdict from the click as lookup-click learned it when the shopper landed, or null when
 * it did not. Also what decides once the click's life has ended with the service unreachable:
 * after that it can only answer 404.
 */
async function landingVerdict(run: OrderRun, row: Verification, change: Change): Promise<StepResult | null> {
  const record = row.clickId ? await knownClick(row.shop, row.clickId) : null;
  if (!record?.expectedTag) return null;
  const hijacked = (row.arrivedTag ?? "") !== record.expectedTag;
  const updated = await run.keep(
    {
      ...change.data,
      expectedTag: record.expectedTag,
      creatorId: record.creatorId,
      verdict: hijacked
        ? "hijacked: the arrived tag is not the expected tag the click had when the shopper landed"
        : "matched: the arrived tag is the expected tag the click had when the shopper landed",
      recorded: false,
      hijacked,
      verdictSource: "landing",
      lastError: null,
    },
    change.also,
  );
  return { row: updated };
}

function describe(error: ClickServiceError): string {
  return `${error.kind}: ${error.message}`;
}
